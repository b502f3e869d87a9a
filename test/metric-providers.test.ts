// The reply shapes of the seed providers, served by local servers that record each request: an
// event database (New Relic style), a monitoring data API (Sysdig style) and a search engine
// (Elasticsearch style).
import t from 'tap';
import type { MetricSpec } from '../shared/kube/resources.ts';
import { USER_AGENT } from '../shared/metrics/build-request.ts';
import { fetchMetric } from '../shared/metrics/fetch-metric.ts';
import { JqPool } from '../shared/metrics/jq/jq-pool.ts';
import { capturedLog, query, secretsFile } from './support/metric-fixtures.ts';
import { startRecordingServer } from './support/recording-server.ts';

const jq = new JqPool();
t.teardown(() => jq.close());
const secrets = secretsFile([
  { name: 'newrelic', namespace: 'shop', data: { apikey: 'NRIQ-7f3a9c' } },
  { name: 'sysdig', namespace: 'monitoring', data: { token: 'sd-tok-51e0b2' } },
  { name: 'elastic', namespace: 'shop', data: { username: 'metrics-reader', password: 'el@stic pw!' } },
]);
t.teardown(secrets.remove);
const { log, text: logText } = capturedLog();
const deps = { secrets: secrets.source, jq, log };

/** Headers every query sends, beside the ones a test names. */
function baseHeaders(host: string) {
  return { accept: 'application/json', 'user-agent': USER_AGENT, 'accept-encoding': 'gzip,deflate', connection: 'keep-alive', host };
}

t.test('event database: GET with an nrql parameter and an X-Query-Key APIKey header', async (t) => {
  const server = await startRecordingServer(() => ({ body: { results: [{ count: 1523 }], metadata: { eventTypes: ['Transaction'] } } }));
  t.teardown(server.close);
  const spec: MetricSpec = {
    provider: 'newrelic',
    urlTemplate: `${server.url}/v1/accounts/1234/query`,
    authType: 'APIKey',
    secret: 'newrelic',
    headerTemplates: [{ name: 'X-Query-Key', value: '${apikey}' }],
    params: [{ name: 'nrql', value: "SELECT count(*) FROM Transaction WHERE revisionName='$revision' SINCE $elapsedTime seconds ago" }],
    jqExpression: '.results[0].count',
  };
  const fetched = await fetchMetric(query(spec, 'canary', { variables: { revision: 'shop-v2' }, elapsedSeconds: 300 }), deps);
  t.match(fetched.result, { kind: 'value', value: 1523 });
  const host = new URL(server.url).host;
  t.same(server.requests, [
    {
      method: 'GET',
      path: '/v1/accounts/1234/query',
      query: { nrql: "SELECT count(*) FROM Transaction WHERE revisionName='shop-v2' SINCE 300 seconds ago" },
      headers: { ...baseHeaders(host), 'x-query-key': 'NRIQ-7f3a9c' },
      body: '',
    },
  ]);
  t.equal(fetched.request?.headers['X-Query-Key'], '****', 'the key is masked in what the command line shows');
});

t.test('event database: POST with the query in a JSON body', async (t) => {
  const server = await startRecordingServer(() => ({ body: { results: [{ count: 88 }] } }));
  t.teardown(server.close);
  const spec: MetricSpec = {
    urlTemplate: `${server.url}/v1/accounts/1234/query`,
    method: 'POST',
    authType: 'APIKey',
    secret: 'shop/newrelic',
    headerTemplates: [{ name: 'X-Query-Key', value: '$apikey' }],
    body: '{"nrql": "SELECT count(*) FROM TransactionError WHERE revisionName = \'$revision\' SINCE $elapsedTime seconds ago"}',
    jqExpression: '.results[0].count',
  };
  const fetched = await fetchMetric(query(spec, 'baseline', { variables: { revision: 'shop-v1' }, elapsedSeconds: 45 }), deps);
  t.match(fetched.result, { kind: 'value', value: 88 });
  const body = `{"nrql": "SELECT count(*) FROM TransactionError WHERE revisionName = 'shop-v1' SINCE 45 seconds ago"}`;
  t.same(server.requests, [
    {
      method: 'POST',
      path: '/v1/accounts/1234/query',
      query: {},
      headers: {
        ...baseHeaders(new URL(server.url).host),
        'x-query-key': 'NRIQ-7f3a9c',
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    },
  ]);
});

t.test('monitoring data API: POST with a time range from elapsedTime, filters from version variables, Bearer in Authorize', async (t) => {
  const server = await startRecordingServer(() => ({
    body: { data: [{ t: 1582756200, d: [6.481] }], start: 1582755600, end: 1582756200 },
  }));
  t.teardown(server.close);
  const spec: MetricSpec = {
    provider: 'sysdig',
    urlTemplate: `${server.url}/api/data`,
    method: 'POST',
    authType: 'Bearer',
    secret: 'monitoring/sysdig',
    headerTemplates: [{ name: 'Authorize', value: 'Bearer ${token}' }],
    body: JSON.stringify({
      last: '$elapsedTime',
      sampling: 600,
      filter: "kubernetes.namespace.name = '$namespace' and kubernetes.deployment.name = '$deployment'",
      metrics: [{ id: 'net.request.time', aggregations: { time: 'timeAvg', group: 'avg' } }],
      dataSourceType: 'container',
    }).replace('"$elapsedTime"', '$elapsedTime'),
    jqExpression: '.data[0].d[0]',
  };
  const fetched = await fetchMetric(
    query(spec, 'canary', { variables: { namespace: 'shop', deployment: 'shop-canary' }, elapsedSeconds: 600 }),
    deps,
  );
  t.match(fetched.result, { kind: 'value', value: 6.481 });
  const body =
    `{"last":600,"sampling":600,"filter":"kubernetes.namespace.name = 'shop' and kubernetes.deployment.name = 'shop-canary'",` +
    `"metrics":[{"id":"net.request.time","aggregations":{"time":"timeAvg","group":"avg"}}],"dataSourceType":"container"}`;
  t.same(server.requests, [
    {
      method: 'POST',
      path: '/api/data',
      query: {},
      headers: {
        ...baseHeaders(new URL(server.url).host),
        authorize: 'Bearer sd-tok-51e0b2',
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    },
  ]);
});

t.test('search engine: POST an aggregation with Basic auth, value at aggregations.<agg>.<name>.value', async (t) => {
  const server = await startRecordingServer(() => ({
    body: {
      took: 4,
      timed_out: false,
      hits: { total: { value: 120, relation: 'eq' }, max_score: null, hits: [] },
      aggregations: { by_version: { doc_count: 120, mean_latency: { value: 87.25 } } },
    },
  }));
  t.teardown(server.close);
  const spec: MetricSpec = {
    provider: 'elasticsearch',
    urlTemplate: `${server.url}/shop-logs/_search`,
    method: 'POST',
    authType: 'Basic',
    secret: 'elastic',
    body: JSON.stringify({
      size: 0,
      query: { bool: { filter: [{ term: { version: '$name' } }, { range: { '@timestamp': { gte: 'now-${elapsedTime}s' } } }] } },
      aggs: { by_version: { filter: { term: { status: 200 } }, aggs: { mean_latency: { avg: { field: 'latency_ms' } } } } },
    }),
    jqExpression: '.aggregations.by_version.mean_latency.value',
  };
  const fetched = await fetchMetric(query(spec, 'candidate-1', { elapsedSeconds: 900 }), deps);
  t.match(fetched.result, { kind: 'value', value: 87.25 });
  const body =
    '{"size":0,"query":{"bool":{"filter":[{"term":{"version":"candidate-1"}},{"range":{"@timestamp":{"gte":"now-900s"}}}]}},' +
    '"aggs":{"by_version":{"filter":{"term":{"status":200}},"aggs":{"mean_latency":{"avg":{"field":"latency_ms"}}}}}}';
  t.same(server.requests, [
    {
      method: 'POST',
      path: '/shop-logs/_search',
      query: {},
      headers: {
        ...baseHeaders(new URL(server.url).host),
        authorization: `Basic ${Buffer.from('metrics-reader:el@stic pw!').toString('base64')}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    },
  ]);
  t.equal(fetched.request?.headers.Authorization, 'Basic ****');
});

t.test('no secret value reaches the log', async (t) => {
  for (const value of ['NRIQ-7f3a9c', 'sd-tok-51e0b2', 'el@stic pw!', Buffer.from('metrics-reader:el@stic pw!').toString('base64')]) {
    t.notOk(logText().includes(value), `the log does not contain ${value.slice(0, 4)}…`);
  }
  t.match(logText(), /"msg":"metric value"/, 'the queries were logged');
});
