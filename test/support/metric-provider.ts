// A metrics provider for experiment tests: it answers each (metric, version) with the value the
// test sets, or fails for it, and Metrics that query it.
import type { MetricSpec } from '../../shared/kube/resources.ts';
import { startRecordingServer, type RecordingServer } from './recording-server.ts';

export type ProviderValue = number | 'fail';

/** A value, or the values of successive queries (the last one repeats). */
export type ProviderValues = ProviderValue | ProviderValue[];

export interface MetricProvider extends RecordingServer {
  set: (metric: string, values: Record<string, ProviderValues>) => void;
  /** A Metric that asks this provider for `metric`, per version (by the version's name). */
  metricSpec: (metric: string) => MetricSpec;
}

export async function startMetricProvider(): Promise<MetricProvider> {
  const values = new Map<string, ProviderValue[]>();
  const server = await startRecordingServer((request) => {
    const queue = values.get(`${request.query.metric}/${request.query.version}`);
    const value = queue && queue.length > 1 ? queue.shift() : queue?.[0];
    if (value === undefined) return { status: 404, body: { error: `no value for ${request.query.metric} of ${request.query.version}` } };
    if (value === 'fail') return { status: 503, body: { error: 'backend unavailable' } };
    return { body: { value } };
  });
  return {
    ...server,
    set: (metric, perVersion) => {
      for (const [version, value] of Object.entries(perVersion)) values.set(`${metric}/${version}`, Array.isArray(value) ? [...value] : [value]);
    },
    metricSpec: (metric) => ({
      provider: 'test',
      urlTemplate: `${server.url}/value`,
      params: [
        { name: 'metric', value: metric },
        { name: 'version', value: '$name' },
      ],
      jqExpression: '.value',
      timeoutSeconds: 5,
    }),
  };
}
