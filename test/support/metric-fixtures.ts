// Shared set-up for metric-fetch tests: a captured log, Secret files, queries.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { stringify } from 'yaml';
import { fileSecretSource } from '../../cli/file-secret-source.ts';
import type { MetricSpec } from '../../shared/kube/resources.ts';
import type { MetricQuery } from '../../shared/metrics/fetch-metric.ts';
import type { SecretSource } from '../../shared/metrics/secret-source.ts';
import { tempDir } from './processes.ts';

/** A pino logger at debug level whose lines the test can read. */
export function capturedLog(): { log: Logger; text: () => string } {
  const lines: string[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { log, text: () => lines.join('') };
}

export interface SecretFixture {
  name: string;
  namespace?: string;
  data: Record<string, string>;
}

/** A YAML file of Secret manifests (data base64-encoded, as kubectl writes them) and the source reading it. */
export function secretsFile(secrets: SecretFixture[]): { path: string; source: SecretSource; remove: () => void } {
  const dir = tempDir('secrets');
  const path = join(dir.path, 'secrets.yaml');
  const manifests = secrets.map(({ name, namespace, data }) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
  }));
  writeFileSync(path, manifests.map((manifest) => stringify(manifest)).join('---\n'));
  return { path, source: fileSecretSource(path), remove: dir.remove };
}

export function query(
  spec: MetricSpec,
  version: string,
  options: { variables?: Record<string, string>; elapsedSeconds?: number; namespace?: string } = {},
): MetricQuery {
  const namespace = options.namespace ?? 'shop';
  return {
    metric: { namespace, name: 'test-metric', spec },
    namespace,
    version: { name: version, variables: options.variables ?? {} },
    elapsedSeconds: options.elapsedSeconds ?? 600,
  };
}
