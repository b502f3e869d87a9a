// Every way a query can fail gives "unavailable" with a reason that says which way, and no secret
// value reaches a reason or a log line, even when the provider echoes the credentials back.
import { CoreV1Api } from '@kubernetes/client-node';
import t from 'tap';
import { kubeSecretSource } from '../shared/kube/kube-secret-source.ts';
import type { MetricSpec } from '../shared/kube/resources.ts';
import { fetchMetric, type FetchDeps } from '../shared/metrics/fetch-metric.ts';
import { JqPool } from '../shared/metrics/jq/jq-pool.ts';
import { localCluster } from './support/control-plane.ts';
import { capturedLog, query, secretsFile } from './support/metric-fixtures.ts';
import { freePort } from './support/processes.ts';
import { startRecordingServer, type Answer } from './support/recording-server.ts';

const SECRET = { apikey: 'AK-live-9d8c7b6a', username: 'svc-user', password: 'P@ss-w0rd-x1' };
const SECRET_VALUES = [...Object.values(SECRET), Buffer.from(`${SECRET.username}:${SECRET.password}`).toString('base64')];

const jq = new JqPool();
t.teardown(() => jq.close());
const secrets = secretsFile([{ name: 'creds', namespace: 'shop', data: SECRET }]);
t.teardown(secrets.remove);
const { log, text: logText } = capturedLog();

// Replies by path; error replies echo the credentials they received, as careless providers do.
const provider = await startRecordingServer((request): Answer => {
  const echo = `${request.headers['x-query-key'] ?? ''} ${request.headers.authorization ?? ''}`;
  switch (request.path) {
    case '/json':
      return { body: { text: 'abc', nothing: null, list: [1, 2], flag: true, n: 5 } };
    case '/html':
      return { body: `<html><body>Service Unavailable ${echo}</body></html>`, headers: { 'Content-Type': 'text/html' } };
    case '/array':
      return { body: [{ value: 1 }] };
    case '/error':
      return { status: 500, body: { error: `internal error while serving key ${echo}` } };
    case '/slow':
      return { body: { n: 1 }, delayMs: 3000 };
    case '/big':
      return { body: JSON.stringify({ padding: 'x'.repeat(4096) }), headers: { 'Transfer-Encoding': 'chunked' } };
    default:
      return { status: 404, body: { error: 'no such path' } };
  }
});
t.teardown(provider.close);
// The same secret in a cluster, where no RoleBinding lets the functions' service account read it.
const cluster = await localCluster(t);
await cluster.config().makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'shop' } } });
await cluster.config().makeApiClient(CoreV1Api).createNamespacedSecret({ namespace: 'shop', body: { metadata: { name: 'creds' }, stringData: SECRET } });
const closedPort = await freePort();
const host = new URL(provider.url).host;

/** A Metric on the provider that sends the API key and Basic credentials. */
function spec(path: string, extra: Partial<MetricSpec> = {}): MetricSpec {
  return {
    urlTemplate: `${provider.url}${path}`,
    authType: 'Basic',
    secret: 'creds',
    headerTemplates: [{ name: 'X-Query-Key', value: '${apikey}' }],
    jqExpression: '.n',
    ...extra,
  };
}

interface Case {
  name: string;
  spec: MetricSpec;
  reason: string | RegExp;
  deps?: Partial<FetchDeps>;
}

const cases: Case[] = [
  { name: 'jq compile error', spec: spec('/json', { jqExpression: '.n | nosuchfunction' }), reason: 'jq compile error: nosuchfunction/0 is not defined at <top-level>, line 1' },
  { name: 'jq yields a string', spec: spec('/json', { jqExpression: '.text' }), reason: 'jq yielded string "abc"' },
  { name: 'jq yields null', spec: spec('/json', { jqExpression: '.nothing' }), reason: 'jq yielded null' },
  { name: 'jq yields an array', spec: spec('/json', { jqExpression: '.list' }), reason: 'jq yielded array [1,2]' },
  { name: 'jq yields no output', spec: spec('/json', { jqExpression: '.list[] | select(. > 5)' }), reason: 'jq yielded no output' },
  { name: 'jq yields NaN', spec: spec('/json', { jqExpression: '.n | . * nan' }), reason: 'jq yielded NaN' },
  { name: 'a reply that is not JSON', spec: spec('/html'), reason: 'reply is not JSON: Invalid numeric literal at line 1, column 20' },
  { name: 'a JSON array reply', spec: spec('/array'), reason: 'reply is a JSON array; a JSON object is expected' },
  {
    name: 'HTTP 500',
    spec: spec('/error'),
    reason: `HTTP 500 from ${host}: {"error":"internal error while serving key **** Basic ****"}`,
  },
  { name: 'connection refused', spec: spec('/json', { urlTemplate: `http://127.0.0.1:${closedPort}/json` }), reason: `connection refused by 127.0.0.1:${closedPort}` },
  { name: 'timeout', spec: spec('/slow', { timeoutSeconds: 1 }), reason: `timeout after 1s waiting for ${host}` },
  { name: 'a reply over the cap', spec: spec('/big'), reason: `reply from ${host} is larger than the 1 KB limit`, deps: { maxReplyBytes: 1024 } },
  {
    name: 'an unknown placeholder',
    spec: spec('/json', { params: [{ name: 'query', value: 'up{version="$version"}' }] }),
    reason: 'params.query: unknown placeholder $version; known: revision, name, elapsedTime',
  },
  {
    name: 'a missing secret field',
    spec: spec('/json', { headerTemplates: [{ name: 'X-Query-Key', value: '${apiKey}' }] }),
    reason: 'headerTemplates.X-Query-Key: secret shop/creds has no field "apiKey"',
  },
  {
    name: 'a secret read refused with 403',
    spec: spec('/json'),
    reason:
      'secret shop/creds: forbidden; create a RoleBinding of ClusterRole exp-secret-reader-analytics ' +
      'for service account exp-system/exp-analytics in namespace shop',
    deps: { secrets: kubeSecretSource(cluster.config('exp-analytics').makeApiClient(CoreV1Api)) },
  },
  {
    name: 'a body that is not JSON after substitution',
    spec: spec('/json', { method: 'POST', body: '{"query": "rate", "version": $revision}' }),
    reason: /^body is not valid JSON after substitution: Unexpected token 'v', .+ is not valid JSON$/,
  },
  { name: 'a runaway jq expression', spec: spec('/json', { jqExpression: 'last(range(1e12))', timeoutSeconds: 3 }), reason: 'timeout after 3s (jq was still running)' },
];

for (const { name, spec: metricSpec, reason, deps } of cases) {
  t.test(`failure: ${name}`, async (t) => {
    const fetched = await fetchMetric(query(metricSpec, 'canary', { variables: { revision: 'v2' } }), { secrets: secrets.source, jq, log, ...deps });
    t.equal(fetched.result.kind, 'unavailable');
    const given = fetched.result.kind === 'unavailable' ? fetched.result.reason : '';
    if (typeof reason === 'string') t.equal(given, reason);
    else t.match(given, reason);
    t.match(fetched.result.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const shown = JSON.stringify(fetched);
    for (const value of SECRET_VALUES) t.notOk(shown.includes(value), `no secret value in what is returned (${value.slice(0, 3)}…)`);
  });
}

t.test('failure: a dependency that throws gives a reason, not an exception', async (t) => {
  const throwing = { read: async () => Promise.reject(new Error('secret store exploded')) };
  const fetched = await fetchMetric(query(spec('/json'), 'canary'), { secrets: throwing, jq, log });
  t.match(fetched.result, { kind: 'unavailable', reason: 'internal error: secret store exploded' });
});

t.test('failure: no secret value in any log line', async (t) => {
  const logged = logText();
  t.equal(logged.match(/"msg":"metric unavailable"/g)?.length, cases.length + 1, 'every failure was logged');
  for (const value of SECRET_VALUES) t.notOk(logged.includes(value), `the log does not contain ${value.slice(0, 3)}…`);
});
