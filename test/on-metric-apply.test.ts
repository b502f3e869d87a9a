// on-metric-apply: the Ready condition of a Metric, written once per change, whatever the order or
// number of the events that say so.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, Watch } from '@kubernetes/client-node';
import { CloudEvent } from 'cloudevents';
import t from 'tap';
import { pino } from 'pino';
import { makeHandler } from '../functions/on-metric-apply/handler.ts';
import { sinkEmitter } from '../shared/events/function-host.ts';
import { CustomResources } from '../shared/kube/custom-resources.ts';
import type { Metric, MetricSpec } from '../shared/kube/resources.ts';
import { JqPool } from '../shared/metrics/jq/jq-pool.ts';
import { nextMetricStatus } from '../shared/metrics/metric-status.ts';
import { metricProblems } from '../shared/metrics/validate-metric.ts';
import { clusterProcess, localCluster } from './support/control-plane.ts';
import { tempDir } from './support/processes.ts';

const quiet = pino({ level: 'silent' });
const jq = new JqPool({ size: 1 });
t.teardown(() => jq.close());
const compileJq = (expression: string) => jq.compile(expression, Date.now() + 10_000);

t.test('validation: each kind of problem, with what to fix', async (t) => {
  const valid: MetricSpec = { urlTemplate: 'https://prom:9090/api/v1/query', params: [{ name: 'query', value: 'up{v="$revision"}' }], jqExpression: '.data.result[0].value[1] | tonumber' };
  const cases: [MetricSpec, (string | RegExp)[]][] = [
    [valid, []],
    [{ mock: [{ name: 'v1', level: '500m' }] }, []],
    [{ ...valid, jqExpression: '.data | foo(' }, ['InvalidJqExpression: jqExpression does not compile: syntax error, unexpected end of file at <top-level>, line 1']],
    [{ ...valid, params: [{ name: 'query', value: 'up{v="${revision"' }] }, ['InvalidTemplate: params.query: "${" without a closing "}"; write ${name} with both braces, or $$ for a literal $']],
    [{ ...valid, urlTemplate: 'prom:9090/query' }, ['InvalidURL: urlTemplate must be an http or https URL, not prom:']],
    [{ ...valid, urlTemplate: 'http://' }, ['InvalidURL: urlTemplate is not a well-formed URL; write it as https://host[:port]/path']],
    [{ ...valid, method: 'POST', body: '{"q": $revision' }, [/^InvalidBody: body is not valid JSON \(with each placeholder as 1\): /]],
    [{ ...valid, body: '{}' }, ['InvalidBody: body is sent only with POST; set method: POST or remove body']],
    [{ ...valid, authType: 'Basic' }, ['InvalidAuth: authType Basic needs spec.secret: the Secret that holds the credentials']],
    [{ ...valid, headerTemplates: [{ name: 'X-Key', value: '${key}' }] }, ['InvalidAuth: headerTemplates.X-Key uses ${key} from a secret, and spec.secret is not set']],
    [{ ...valid, authType: 'Bearer', secret: 'creds' }, ['InvalidAuth: authType Bearer uses no secret field: add a header template such as "Authorization: Bearer ${token}", or put ${field} in urlTemplate']],
    [{ ...valid, secret: 'creds' }, ['InvalidAuth: spec.secret is set but nothing uses it: set authType, or use ${field} in urlTemplate or headerTemplates']],
    [{ ...valid, authType: 'APIKey', secret: 'creds', headerTemplates: [{ name: 'X-Query-Key', value: '${apikey}' }] }, []],
    [{ mock: [{ name: 'v1', level: 'lots' }] }, ['InvalidMock: mock level of version "v1" is not a number or a quantity (such as 12.5 or "500m")']],
  ];
  for (const [spec, expected] of cases) {
    const problems = (await metricProblems(spec, compileJq)).map((problem) => `${problem.reason}: ${problem.message}`);
    t.equal(problems.length, expected.length, JSON.stringify(spec));
    expected.forEach((message, index) => t.match(problems[index], message));
  }
});

t.test('status: Ready follows the problems; nothing to write when it already says so', async (t) => {
  const first = nextMetricStatus(undefined, 1, [], new Date('2026-01-01T00:00:00Z'));
  t.same(first, {
    observedGeneration: 1,
    conditions: [{ type: 'Ready', status: 'True', reason: 'Valid', message: 'the Metric is valid and can be queried', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 }],
  });
  t.equal(nextMetricStatus(first, 1, [], new Date('2026-01-02T00:00:00Z')), undefined);
  const newer = nextMetricStatus(first, 2, [], new Date('2026-01-02T00:00:00Z'));
  t.equal(newer?.conditions?.[0].lastTransitionTime, '2026-01-01T00:00:00Z', 'the transition time moves only with the status');
  const broken = nextMetricStatus(newer, 3, [{ reason: 'InvalidURL', message: 'bad' }], new Date('2026-01-03T00:00:00Z'));
  t.match(broken?.conditions?.[0], { status: 'False', reason: 'InvalidURL', message: 'bad', lastTransitionTime: '2026-01-03T00:00:00Z', observedGeneration: 3 });
});

t.test('handler: duplicate and reordered deliveries leave the same status, written once', async (t) => {
  const cluster = await localCluster(t);
  await cluster.kubectl(['apply', '-f', 'crds/']);
  await cluster.kubectl(['create', 'namespace', 'shop']);
  const admin = cluster.config().makeApiClient(CustomObjectsApi);
  const metrics = new CustomResources<Metric>(cluster.config('exp-analytics').makeApiClient(CustomObjectsApi), 'metrics');
  const handler = makeHandler({ metrics, compileJq, now: () => new Date(), log: quiet });
  const target = { group: 'exp.dev', version: 'v1alpha1', plural: 'metrics', namespace: 'shop' };
  const created = await admin.createNamespacedCustomObject({
    ...target,
    body: { apiVersion: 'exp.dev/v1alpha1', kind: 'Metric', metadata: { name: 'latency' }, spec: { urlTemplate: 'http://prom/api/v1/query', jqExpression: '.x' } },
  });
  const event = (type: string, object: unknown) =>
    new CloudEvent<unknown>({ type: `dev.knative.apiserver.resource.${type}`, source: cluster.plane.url, kind: 'Metric', apiversion: 'exp.dev/v1alpha1', name: 'latency', namespace: 'shop', data: object });
  const deliver = async (...events: CloudEvent<unknown>[]) => {
    for (const delivered of events) t.equal(await handler(delivered, { log: quiet, emit: sinkEmitter(undefined) }), undefined);
  };

  await deliver(event('add', created));
  const afterFirst = await metrics.get({ namespace: 'shop', name: 'latency' });
  t.match(afterFirst?.status?.conditions, [{ type: 'Ready', status: 'True', observedGeneration: 1 }]);
  await deliver(event('add', created), event('update', afterFirst), event('add', created), event('delete', afterFirst));
  const afterDuplicates = await metrics.get({ namespace: 'shop', name: 'latency' });
  t.equal(afterDuplicates?.metadata.resourceVersion, afterFirst?.metadata.resourceVersion, 'duplicates write nothing more');

  const changed = await admin.patchNamespacedCustomObject(
    { ...target, name: 'latency', body: [{ op: 'replace', path: '/spec/jqExpression', value: '.x | (' }] },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  );
  // The stale add event comes after the change: the handler acts on what is there now.
  await deliver(event('add', created));
  const afterReorder = await metrics.get({ namespace: 'shop', name: 'latency' });
  t.match(afterReorder?.status?.conditions, [{ status: 'False', reason: 'InvalidJqExpression', observedGeneration: 2 }]);
  await deliver(event('update', changed), event('update', afterReorder));
  t.equal((await metrics.get({ namespace: 'shop', name: 'latency' }))?.metadata.resourceVersion, afterReorder?.metadata.resourceVersion);

  await deliver(new CloudEvent<unknown>({ type: 'dev.knative.apiserver.resource.add', source: 'x', kind: 'Metric', name: 'gone', namespace: 'shop', data: {} }));
  await deliver(new CloudEvent<unknown>({ type: 'dev.knative.sources.ping', source: 'x', data: {} }));
});

t.test('end to end with exp local up and kubectl: Ready within seconds, one status write per apply', async (t) => {
  const dir = tempDir('e2e-metric');
  t.teardown(dir.remove);
  const cluster = await clusterProcess(['--data-dir', `${dir.path}/data`], dir.path);
  t.teardown(() => cluster.process.kill('SIGTERM'));
  await cluster.kubectl(['create', 'namespace', 'shop']);

  const writes: string[] = [];
  const request = await new Watch(cluster.config()).watch(
    '/apis/exp.dev/v1alpha1/namespaces/shop/metrics',
    {},
    (type: string, object: Metric) => writes.push(`${type} ${object.metadata.name} ${object.status?.conditions?.[0]?.status ?? '-'}`),
    () => {},
  );
  t.teardown(() => request.abort());

  const metric = (jqExpression: string) =>
    `apiVersion: exp.dev/v1alpha1\nkind: Metric\nmetadata:\n  name: latency\n  namespace: shop\nspec:\n  urlTemplate: http://prometheus:9090/api/v1/query\n  jqExpression: '${jqExpression}'\n`;
  const ready = (status: string) => ['wait', 'metric/latency', '-n', 'shop', `--for=jsonpath={.status.conditions[?(@.type=="Ready")].status}=${status}`, '--timeout=30s'];
  const readyMessage = ['get', 'metric', 'latency', '-n', 'shop', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].message}'];

  t.equal((await cluster.kubectl(['apply', '-f', '-'], metric('.data.result[0].value[1] | tonumber'))).code, 0);
  t.equal((await cluster.kubectl(ready('True'))).code, 0, 'a valid Metric becomes Ready');
  // Its own status write comes back as an update event; the function must end the chain there.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  t.same(writes, ['ADDED latency -', 'MODIFIED latency True'], 'exactly one status write for one apply');

  t.equal((await cluster.kubectl(['apply', '-f', '-'], metric('.data.result[0] | nosuch'))).code, 0);
  t.equal((await cluster.kubectl(ready('False'))).code, 0, 'a broken jq expression makes it not Ready');
  t.equal((await cluster.kubectl(readyMessage)).stdout, 'jqExpression does not compile: nosuch/0 is not defined at <top-level>, line 1');

  t.equal((await cluster.kubectl(['apply', '-f', '-'], metric('.data.result[0].value[1] | tonumber'))).code, 0);
  t.equal((await cluster.kubectl(ready('True'))).code, 0, 'fixed with kubectl apply, it is Ready again');
  const [header, row] = (await cluster.kubectl(['get', 'metrics', '-n', 'shop'])).stdout.split('\n');
  t.match(header, /^NAME\s+TYPE\s+PROVIDER\s+READY\s+AGE$/);
  t.match(row, /^latency\s+Gauge\s+True\s+\d+s$/);
});
