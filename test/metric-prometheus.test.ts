// Metrics against a real Prometheus (Debian package) holding backfilled data, directly and through
// nginx with basic auth.
import t from 'tap';
import type { MetricSpec } from '../shared/kube/resources.ts';
import { fetchMetric } from '../shared/metrics/fetch-metric.ts';
import { JqPool } from '../shared/metrics/jq/jq-pool.ts';
import { capturedLog, query, secretsFile } from './support/metric-fixtures.ts';
import { OLD_LATENCY, RECENT_LATENCY, startBasicAuthProxy, startPrometheus } from './support/prometheus.ts';

const prometheus = await startPrometheus();
t.teardown(prometheus.stop);
const proxy = await startBasicAuthProxy(prometheus.url, 'grafana', 'kH7#q-Lm2');
t.teardown(proxy.stop);
const jq = new JqPool();
t.teardown(() => jq.close());
const secrets = secretsFile([
  { name: 'prom-creds', namespace: 'shop', data: { username: 'grafana', password: 'kH7#q-Lm2' } },
  { name: 'wrong-creds', namespace: 'shop', data: { username: 'grafana', password: 'not-the-password' } },
]);
t.teardown(secrets.remove);
const { log, text: logText } = capturedLog();
const deps = { secrets: secrets.source, jq, log };

const latency = (urlTemplate: string, extra: Partial<MetricSpec> = {}): MetricSpec => ({
  provider: 'prometheus',
  urlTemplate: `${urlTemplate}/api/v1/query`,
  params: [{ name: 'query', value: 'max_over_time(app_request_latency_ms{revision="$revision"}[${elapsedTime}s])' }],
  jqExpression: '.data.result[0].value[1] | tonumber',
  ...extra,
});

t.test('prometheus: the value for each version matches the backfilled data', async (t) => {
  for (const revision of ['v1', 'v2']) {
    const fetched = await fetchMetric(query(latency(prometheus.url), revision, { variables: { revision }, elapsedSeconds: 600 }), deps);
    t.match(fetched.result, { kind: 'value', value: RECENT_LATENCY[revision] }, revision);
    t.equal(fetched.reply?.status, 200);
  }
});

t.test('prometheus: elapsedTime sets the range, reaching back to older data', async (t) => {
  const fetched = await fetchMetric(query(latency(prometheus.url), 'baseline', { variables: { revision: 'v1' }, elapsedSeconds: 3 * 3600 }), deps);
  t.match(fetched.result, { kind: 'value', value: OLD_LATENCY });
  t.match(fetched.request?.url, /%5B10800s%5D/, 'the range in the query is the elapsed time');
});

t.test('prometheus: a version without data has no value, with a reason', async (t) => {
  const fetched = await fetchMetric(query(latency(prometheus.url), 'v9', { variables: { revision: 'v9' } }), deps);
  t.match(fetched.result, { kind: 'unavailable', reason: 'jq error: null (null) cannot be parsed as a number' });
});

t.test('prometheus behind nginx basic auth: a Basic-auth Metric gets the value', async (t) => {
  const spec = latency(proxy.url, { authType: 'Basic', secret: 'prom-creds' });
  const fetched = await fetchMetric(query(spec, 'canary', { variables: { revision: 'v2' } }), deps);
  t.match(fetched.result, { kind: 'value', value: RECENT_LATENCY.v2 });
  t.equal(fetched.request?.headers.Authorization, 'Basic ****');
});

t.test('prometheus behind nginx basic auth: wrong credentials give unavailable with HTTP 401', async (t) => {
  const spec = latency(proxy.url, { authType: 'Basic', secret: 'wrong-creds' });
  const fetched = await fetchMetric(query(spec, 'canary', { variables: { revision: 'v2' } }), deps);
  t.equal(fetched.result.kind, 'unavailable');
  t.match(fetched.result.kind === 'unavailable' && fetched.result.reason, /^HTTP 401 from 127\.0\.0\.1:\d+: <html> <head><title>401 Authorization Required<\/title>/);
  for (const password of ['kH7#q-Lm2', 'not-the-password']) t.notOk(JSON.stringify(fetched).includes(password));
});

t.test('prometheus: no credential reaches the log', async (t) => {
  for (const value of ['kH7#q-Lm2', 'not-the-password', Buffer.from('grafana:not-the-password').toString('base64')]) {
    t.notOk(logText().includes(value));
  }
});
