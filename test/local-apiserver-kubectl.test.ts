// The real kubectl against the local control plane, as a user would drive it.
import t from 'tap';
import { parse } from 'yaml';
import { localCluster } from './support/control-plane.ts';

const cluster = await localCluster(t);
const { kubectl } = cluster;

async function ok(args: string[], input?: string): Promise<string> {
  const run = await kubectl(args, input);
  if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${run.code}):\n${run.stderr}`);
  return run.stdout;
}

const namespace = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n';
const metric = (timeoutSeconds: number, labels = '') => `apiVersion: exp.dev/v1alpha1
kind: Metric
metadata:
  name: latency
  namespace: shop${labels}
spec:
  provider: prometheus
  urlTemplate: http://prometheus:9090/api/v1/query
  params:
    - name: query
      value: max_over_time(latency{revision="$revision"}[\${elapsedTime}s])
  jqExpression: .data.result[0].value[1] | tonumber
  timeoutSeconds: ${timeoutSeconds}
`;
const secret = `apiVersion: v1
kind: Secret
metadata:
  name: prom-creds
  namespace: shop
stringData:
  username: grafana
  password: s3cret
`;
const roleBinding = `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: exp-secret-reader
  namespace: shop
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: exp-secret-reader-analytics
subjects:
  - kind: ServiceAccount
    name: exp-analytics
    namespace: exp-system
`;

t.test('kubectl: apply -f crds/ serves the custom resources', async (t) => {
  t.match(await ok(['apply', '-f', 'crds/']), /^customresourcedefinition\.apiextensions\.k8s\.io\/metrics\.exp\.dev created$/m);
  t.equal((await kubectl(['get', 'metrics'])).stderr.trim(), 'No resources found in default namespace.');
  t.match(await ok(['get', 'crd']), /^metrics\.exp\.dev\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
  t.match(await ok(['wait', '--for=condition=Established', 'crd/metrics.exp.dev', '--timeout=10s']), /condition met/);
});

t.test('kubectl: apply a Namespace, a Metric, a Secret and a RoleBinding', async (t) => {
  t.equal(await ok(['apply', '-f', '-'], namespace), 'namespace/shop created\n');
  t.equal(await ok(['apply', '-f', '-'], metric(10)), 'metric.exp.dev/latency created\n');
  t.equal(await ok(['apply', '-f', '-'], secret), 'secret/prom-creds created\n');
  t.equal(await ok(['apply', '-f', '-'], roleBinding), 'rolebinding.rbac.authorization.k8s.io/exp-secret-reader created\n');
});

t.test('kubectl: get shows the printer columns', async (t) => {
  const [header, row, ...rest] = (await ok(['get', 'metrics', '-n', 'shop'])).trimEnd().split('\n');
  t.match(header, /^NAME\s+TYPE\s+PROVIDER\s+READY\s+AGE$/);
  t.match(row, /^latency\s+Gauge\s+prometheus\s+\d+s$/, 'READY is empty until a status is written');
  t.same(rest, []);
  t.match(await ok(['get', 'secrets', '-n', 'shop']), /^prom-creds\s+Opaque\s+2\s+\d+s$/m);
  t.match(await ok(['get', 'rolebindings', '-n', 'shop']), /^exp-secret-reader\s+ClusterRole\/exp-secret-reader-analytics\s+\d+s$/m);
});

t.test('kubectl: get -o yaml shows the stored object with its defaults', async (t) => {
  const object = parse(await ok(['get', 'metric', 'latency', '-n', 'shop', '-o', 'yaml']));
  t.match(object, {
    apiVersion: 'exp.dev/v1alpha1',
    kind: 'Metric',
    metadata: { name: 'latency', namespace: 'shop', generation: 1, uid: /^[0-9a-f-]{36}$/, resourceVersion: /^\d+$/, creationTimestamp: /Z$/ },
    spec: { type: 'Gauge', method: 'GET', timeoutSeconds: 10 },
  });
  const stored = parse(await ok(['get', 'secret', 'prom-creds', '-n', 'shop', '-o', 'yaml']));
  t.same(stored.data, { username: Buffer.from('grafana').toString('base64'), password: Buffer.from('s3cret').toString('base64') });
  t.notOk('stringData' in stored, 'stringData is folded into data');
});

t.test('kubectl: describe', async (t) => {
  const text = await ok(['describe', 'metric', 'latency', '-n', 'shop']);
  t.match(text, /^Name:\s+latency$/m);
  t.match(text, /^Namespace:\s+shop$/m);
  t.match(text, /^\s+Jq Expression:\s+\.data\.result\[0\]\.value\[1\] \| tonumber$/m);
  t.match(text, /^Events:\s+<none>$/m);
});

t.test('kubectl: patch --type merge, and get -l', async (t) => {
  t.equal(await ok(['patch', 'metric', 'latency', '-n', 'shop', '--type', 'merge', '-p', '{"metadata":{"labels":{"team":"shop"}},"spec":{"units":"ms"}}']), 'metric.exp.dev/latency patched\n');
  t.equal(await ok(['get', 'metric', 'latency', '-n', 'shop', '-o', 'jsonpath={.spec.units} {.metadata.generation}']), 'ms 2');
  t.match(await ok(['get', 'metrics', '-n', 'shop', '-l', 'team=shop', '-o', 'name']), 'metric.exp.dev/latency');
  t.equal((await kubectl(['get', 'metrics', '-n', 'shop', '-l', 'team in (payments)'])).stderr.trim(), 'No resources found in shop namespace.');
  t.match(await ok(['get', 'metrics', '-A', '-l', '!legacy', '-o', 'name']), 'metric.exp.dev/latency');
});

t.test('kubectl: apply again with a change grows the generation; without one changes nothing', async (t) => {
  t.equal(await ok(['apply', '-f', '-'], metric(20, '\n  labels:\n    team: shop')), 'metric.exp.dev/latency configured\n');
  t.equal(await ok(['get', 'metric', 'latency', '-n', 'shop', '-o', 'jsonpath={.spec.timeoutSeconds} {.metadata.generation}']), '20 3');
  const before = await ok(['get', 'metric', 'latency', '-n', 'shop', '-o', 'jsonpath={.metadata.resourceVersion}']);
  t.equal(await ok(['apply', '-f', '-'], metric(20, '\n  labels:\n    team: shop')), 'metric.exp.dev/latency unchanged\n');
  t.equal(await ok(['get', 'metric', 'latency', '-n', 'shop', '-o', 'jsonpath={.metadata.resourceVersion}']), before);
});

t.test('kubectl: wait --for=jsonpath', async (t) => {
  const waiting = kubectl(['wait', 'metric/latency', '-n', 'shop', '--for=jsonpath={.spec.timeoutSeconds}=30', '--timeout=20s']);
  await new Promise((resolve) => setTimeout(resolve, 500));
  await ok(['patch', 'metric', 'latency', '-n', 'shop', '--type', 'merge', '-p', '{"spec":{"timeoutSeconds":30}}']);
  const run = await waiting;
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stdout, 'metric.exp.dev/latency condition met\n');
});

t.test('kubectl: an invalid Metric is refused with the usual 422 error', async (t) => {
  const invalid = 'apiVersion: exp.dev/v1alpha1\nkind: Metric\nmetadata:\n  name: bad\n  namespace: shop\nspec:\n  urlTemplate: http://x\n  method: PUT\n  timeoutSeconds: 500\n';
  const run = await kubectl(['apply', '-f', '-'], invalid);
  t.equal(run.code, 1);
  t.equal(
    run.stderr,
    'The Metric "bad" is invalid: \n' +
      '* spec: Required value: set urlTemplate and jqExpression, or mock\n' +
      '* spec.method: Unsupported value: "PUT": supported values: "GET", "POST"\n' +
      '* spec.timeoutSeconds: Invalid value: 500: spec.timeoutSeconds in body should be less than or equal to 300\n',
  );
  const typo = await kubectl(['apply', '-f', '-'], metric(10).replace('  timeoutSeconds:', '  jqExpresion: .x\n  timeoutSeconds:').replace('name: latency', 'name: typo'));
  t.equal(typo.code, 1);
  t.equal(
    typo.stderr,
    'Error from server (BadRequest): error when creating "STDIN": Metric in version "v1alpha1" cannot be handled as a Metric: strict decoding error: unknown field "spec.jqExpresion"\n',
  );
});

t.test('kubectl: the service account reads a Secret only where a RoleBinding allows it', async (t) => {
  const allowed = await kubectl(['--context', 'exp-analytics', 'get', 'secret', 'prom-creds', '-n', 'shop', '-o', 'name']);
  t.equal(allowed.stdout, 'secret/prom-creds\n', allowed.stderr);
  await ok(['apply', '-f', '-'], namespace.replace('shop', 'payments'));
  await ok(['apply', '-f', '-'], secret.replace('namespace: shop', 'namespace: payments'));
  const refused = await kubectl(['--context', 'exp-analytics', 'get', 'secret', 'prom-creds', '-n', 'payments']);
  t.equal(refused.code, 1);
  t.equal(
    refused.stderr,
    'Error from server (Forbidden): secrets "prom-creds" is forbidden: User "system:serviceaccount:exp-system:exp-analytics" ' +
      'cannot get resource "secrets" in API group "" in the namespace "payments"\n',
  );
});

t.test('kubectl: delete', async (t) => {
  t.equal(await ok(['delete', 'metric', 'latency', '-n', 'shop']), 'metric.exp.dev "latency" deleted\n');
  const gone = await kubectl(['get', 'metric', 'latency', '-n', 'shop']);
  t.equal(gone.stderr, 'Error from server (NotFound): metrics.exp.dev "latency" not found\n');
});

t.test('kubectl: the stack CRDs are served from the start, and the example routing objects apply', async (t) => {
  for (const stack of ['knative/service.yaml', 'istio/virtualservice.yaml', 'kserve/inferenceservice.yaml', 'kfserving/inferenceservice.yaml', 'seldon/seldondeployment.yaml']) {
    const run = await kubectl(['apply', '-f', `examples/stacks/${stack}`]);
    t.equal(run.code, 0, `${stack}: ${run.stderr}`);
    t.match(run.stdout, / created\n$/, stack);
  }
  t.match(await ok(['get', 'ksvc', '-n', 'shop', 'shop', '-o', 'jsonpath={.spec.traffic[*].percent}']), /^100 0$/);
  const refused = await kubectl(['patch', 'ksvc', 'shop', '-n', 'shop', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/traffic/0/percent","value":"half"}]']);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /The Service "shop" is invalid: spec\.traffic\[0\]\.percent: Invalid value: "string": spec\.traffic\[0\]\.percent in body must be of type integer: "string"/);
});

t.test('kubectl: the typed create commands, which send protobuf', async (t) => {
  t.equal(await ok(['create', 'namespace', 'payments-2']), 'namespace/payments-2 created\n');
  t.equal(await ok(['create', 'secret', 'generic', 'creds', '-n', 'payments-2', '--from-literal=username=alice', '--from-literal=password=p@ss wörd']), 'secret/creds created\n');
  t.equal(await ok(['create', 'rolebinding', 'reader', '-n', 'payments-2', '--clusterrole=exp-secret-reader-analytics', '--serviceaccount=exp-system:exp-analytics']), 'rolebinding.rbac.authorization.k8s.io/reader created\n');
  t.equal(await ok(['create', 'configmap', 'cfg', '-n', 'payments-2', '--from-literal=a=1']), 'configmap/cfg created\n');
  const password = await kubectl(['--context', 'exp-analytics', 'get', 'secret', 'creds', '-n', 'payments-2', '-o', 'jsonpath={.data.password}']);
  t.equal(Buffer.from(password.stdout, 'base64').toString(), 'p@ss wörd', 'the RoleBinding created from protobuf grants the read');
  t.equal(await ok(['delete', 'namespace', 'payments-2']), 'namespace "payments-2" deleted\n');
  t.equal((await kubectl(['get', 'secret', 'creds', '-n', 'payments-2'])).code, 1, 'deleting a namespace deletes what it holds');
});
