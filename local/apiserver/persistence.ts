// Durability for `--data-dir`: a snapshot plus an append-only log of changes. Each change is
// written and fdatasync'ed before the request that made it is answered, so an acknowledged write
// survives kill -9. Replaying the log over the snapshot gives back the state.
import { closeSync, existsSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface StoredEntry {
  resource: string;
  object: { metadata: { namespace?: string; name?: string; resourceVersion?: string } };
}

export type LogRecord = { put: StoredEntry; rv: number } | { delete: { resource: string; namespace?: string; name: string }; rv: number };

export interface Snapshot {
  rv: number;
  entries: StoredEntry[];
}

const SNAPSHOT = 'snapshot.json';
const LOG = 'changes.log';

export class Persistence {
  private readonly dir: string;
  private log: number;
  private records = 0;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
    this.log = openSync(join(dir, LOG), 'a');
  }

  /** The saved state: the snapshot with the log replayed over it. */
  load(): Snapshot {
    const snapshotPath = join(this.dir, SNAPSHOT);
    const snapshot: Snapshot = existsSync(snapshotPath) ? JSON.parse(readFileSync(snapshotPath, 'utf8')) : { rv: 0, entries: [] };
    const key = (resource: string, namespace: string | undefined, name: string | undefined) => `${resource}|${namespace ?? ''}|${name}`;
    const state = new Map(snapshot.entries.map((entry) => [key(entry.resource, entry.object.metadata.namespace, entry.object.metadata.name), entry]));
    let rv = snapshot.rv;
    const lines = readFileSync(join(this.dir, LOG), 'utf8').split('\n');
    for (const [index, line] of lines.entries()) {
      if (!line) continue;
      let record: LogRecord;
      try {
        record = JSON.parse(line);
      } catch (error) {
        // Only the last line can be torn, by a crash in the middle of a write that was never acknowledged.
        if (index >= lines.length - 2) break;
        throw new Error(`${join(this.dir, LOG)} line ${index + 1} is corrupt: ${(error as Error).message}`);
      }
      this.records++;
      if (record.rv <= snapshot.rv) continue; // already in the snapshot (a crash during compaction)
      if ('put' in record) state.set(key(record.put.resource, record.put.object.metadata.namespace, record.put.object.metadata.name), record.put);
      else state.delete(key(record.delete.resource, record.delete.namespace, record.delete.name));
      rv = Math.max(rv, record.rv);
    }
    return { rv, entries: [...state.values()] };
  }

  append(record: LogRecord): void {
    writeSync(this.log, `${JSON.stringify(record)}\n`);
    fdatasyncSync(this.log);
    this.records++;
  }

  /** Log records since the last snapshot; the store compacts when they outnumber the objects. */
  get logLength(): number {
    return this.records;
  }

  /** Writes the whole state as the new snapshot, then empties the log. */
  compact(snapshot: Snapshot): void {
    const temporary = join(this.dir, `${SNAPSHOT}.tmp`);
    const file = openSync(temporary, 'w');
    writeSync(file, JSON.stringify(snapshot));
    fsyncSync(file);
    closeSync(file);
    renameSync(temporary, join(this.dir, SNAPSHOT));
    const dir = openSync(this.dir, 'r');
    fsyncSync(dir);
    closeSync(dir);
    closeSync(this.log);
    this.log = openSync(join(this.dir, LOG), 'w');
    fsyncSync(this.log);
    this.records = 0;
  }

  close(): void {
    closeSync(this.log);
  }
}
