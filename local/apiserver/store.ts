// The objects the API server holds, a cluster-wide resourceVersion, and the recent changes that
// watches replay. Objects are kept as JSON and handed out as copies.
import { expired } from './status.ts';
import { Persistence, type StoredEntry } from './persistence.ts';
import type { KubeObject } from './table.ts';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Change {
  type: ChangeType;
  /** `group/plural`, as in resourceKey(). */
  resource: string;
  object: KubeObject;
  /** The object before a modification. */
  previous?: KubeObject;
  rv: number;
}

export type ChangeListener = (change: Change) => void;

/** How many changes are kept, by default, for watches that resume from a resourceVersion. */
const HISTORY = 10_000;

export interface StoreOptions {
  /** Keeps the objects in this directory across restarts. */
  dataDir?: string;
  historySize?: number;
}

export function resourceKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export class Store {
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly history: Change[] = [];
  private readonly listeners = new Set<ChangeListener>();
  private readonly persistence?: Persistence;
  private readonly historySize: number;
  private rv = 0;

  constructor({ dataDir, historySize = HISTORY }: StoreOptions = {}) {
    this.historySize = historySize;
    if (!dataDir) return;
    this.persistence = new Persistence(dataDir);
    const saved = this.persistence.load();
    this.rv = saved.rv;
    for (const { resource, object } of saved.entries) this.table(resource).set(objectKey(object.metadata.namespace, object.metadata.name!), object as KubeObject);
  }

  get resourceVersion(): string {
    return String(this.rv);
  }

  private table(resource: string): Map<string, KubeObject> {
    let table = this.objects.get(resource);
    if (!table) this.objects.set(resource, (table = new Map()));
    return table;
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const object = this.objects.get(resource)?.get(objectKey(namespace, name));
    return object && structuredClone(object);
  }

  /** Objects of a resource, in one namespace or all, ordered by namespace and name. */
  list(resource: string, namespace?: string): KubeObject[] {
    const all = [...(this.objects.get(resource)?.values() ?? [])].filter((object) => namespace === undefined || object.metadata.namespace === namespace);
    return all
      .sort((a, b) => objectKey(a.metadata.namespace, a.metadata.name!).localeCompare(objectKey(b.metadata.namespace, b.metadata.name!)))
      .map((object) => structuredClone(object));
  }

  /** Stores a new or changed object under the next resourceVersion and returns the stored copy. */
  put(resource: string, object: KubeObject): KubeObject {
    const key = objectKey(object.metadata.namespace, object.metadata.name!);
    const previous = this.objects.get(resource)?.get(key);
    const stored = structuredClone(object);
    stored.metadata.resourceVersion = String(++this.rv);
    this.persistence?.append({ put: { resource, object: stored } as StoredEntry, rv: this.rv });
    this.table(resource).set(key, stored);
    this.record({ type: previous ? 'MODIFIED' : 'ADDED', resource, object: stored, previous, rv: this.rv });
    return structuredClone(stored);
  }

  remove(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const key = objectKey(namespace, name);
    const existing = this.objects.get(resource)?.get(key);
    if (!existing) return undefined;
    const deleted = structuredClone(existing);
    deleted.metadata.resourceVersion = String(++this.rv);
    this.persistence?.append({ delete: { resource, namespace, name }, rv: this.rv });
    this.objects.get(resource)!.delete(key);
    this.record({ type: 'DELETED', resource, object: deleted, rv: this.rv });
    return structuredClone(deleted);
  }

  /** Removes every object of a resource (its CRD was deleted). */
  removeAll(resource: string): void {
    for (const object of this.list(resource)) this.remove(resource, object.metadata.namespace, object.metadata.name!);
  }

  private record(change: Change): void {
    this.history.push(change);
    if (this.history.length > this.historySize) this.history.splice(0, this.history.length - this.historySize);
    for (const listener of this.listeners) listener(change);
    this.maybeCompact();
  }

  private maybeCompact(): void {
    if (!this.persistence) return;
    const live = [...this.objects.values()].reduce((count, table) => count + table.size, 0);
    if (this.persistence.logLength < Math.max(1000, 4 * live)) return;
    const entries = [...this.objects.entries()].flatMap(([resource, table]) => [...table.values()].map((object) => ({ resource, object }) as StoredEntry));
    this.persistence.compact({ rv: this.rv, entries });
  }

  /**
   * Calls `listener` with the changes after resourceVersion `since` (replayed from history), then
   * with each new change. Throws 410 Expired when those changes are no longer all kept.
   */
  subscribe(since: number, listener: ChangeListener): () => void {
    const oldest = this.history[0]?.rv ?? this.rv + 1;
    if (since < this.rv && since < oldest - 1) throw expired(String(since), oldest - 1);
    for (const change of this.history) if (change.rv > since) listener(change);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.persistence?.close();
  }
}
