// @kubernetes/client-node against the local control plane: the library the functions use.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, Watch, type ApiException } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parse } from 'yaml';
import { localCluster } from './support/control-plane.ts';

const cluster = await localCluster(t);
const admin = cluster.config();
const custom = admin.makeApiClient(CustomObjectsApi);
const core = admin.makeApiClient(CoreV1Api);
const metrics = { group: 'exp.dev', version: 'v1alpha1', plural: 'metrics' };
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

await custom.createClusterCustomObject({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  body: parse(readFileSync(new URL('../crds/metric.yaml', import.meta.url), 'utf8')),
});
await core.createNamespace({ body: { metadata: { name: 'shop' } } });

const metric = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'exp.dev/v1alpha1',
  kind: 'Metric',
  metadata: { name, namespace: 'shop', labels: { team: name.startsWith('a') ? 'a' : 'b' } },
  spec: { urlTemplate: 'http://prom/api/v1/query', jqExpression: '.x', ...spec },
});

/** The Status the server answered with, from a client-node error. */
async function failure(promise: Promise<unknown>): Promise<{ code: number; reason: string; message: string; kind: string }> {
  try {
    await promise;
  } catch (error) {
    const { code, body } = error as ApiException<string>;
    const status = JSON.parse(body);
    return { code, reason: status.reason, message: status.message, kind: status.kind };
  }
  throw new Error('the request succeeded');
}

t.test('client-node: create, get, list, replace and delete custom objects', async (t) => {
  const created = await custom.createNamespacedCustomObject({ ...metrics, namespace: 'shop', body: metric('a-latency') });
  t.match(created, { metadata: { name: 'a-latency', generation: 1, uid: /^[0-9a-f-]{36}$/ }, spec: { timeoutSeconds: 10 } });
  await custom.createNamespacedCustomObject({ ...metrics, namespace: 'shop', body: metric('b-errors') });
  const fetched = await custom.getNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'a-latency' });
  t.same(fetched, created);
  const list = await custom.listNamespacedCustomObject({ ...metrics, namespace: 'shop' });
  t.same(list.items.map((item: { metadata: { name: string } }) => item.metadata.name), ['a-latency', 'b-errors']);
  t.equal(list.kind, 'MetricList');
  const replaced = await custom.replaceNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'a-latency', body: { ...fetched, spec: { ...fetched.spec, units: 'ms' } } });
  t.equal(replaced.spec.units, 'ms');
  t.equal(replaced.metadata.generation, 2);
  t.ok(Number(replaced.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
  await custom.deleteNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'b-errors' });
  t.same(await failure(custom.getNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'b-errors' })), {
    code: 404,
    reason: 'NotFound',
    message: 'metrics.exp.dev "b-errors" not found',
    kind: 'Status',
  });
});

t.test('client-node: label and field selectors', async (t) => {
  await custom.createNamespacedCustomObject({ ...metrics, namespace: 'shop', body: metric('b-errors') });
  const names = async (selectors: { labelSelector?: string; fieldSelector?: string }) =>
    (await custom.listNamespacedCustomObject({ ...metrics, namespace: 'shop', ...selectors })).items.map((item: { metadata: { name: string } }) => item.metadata.name);
  t.same(await names({ labelSelector: 'team=a' }), ['a-latency']);
  t.same(await names({ labelSelector: 'team!=a' }), ['b-errors']);
  t.same(await names({ labelSelector: 'team in (a,b),!missing' }), ['a-latency', 'b-errors']);
  t.same(await names({ fieldSelector: 'metadata.name=b-errors' }), ['b-errors']);
  t.same(await names({ fieldSelector: 'metadata.namespace=shop,metadata.name!=b-errors' }), ['a-latency']);
});

t.test('client-node: the status subresource', async (t) => {
  const before = await custom.getNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'a-latency' });
  const status = { observedGeneration: 2, conditions: [{ type: 'Ready', status: 'True', reason: 'Valid', message: 'ok', lastTransitionTime: '2026-11-22T00:00:00Z' }] };
  const patched = await custom.patchNamespacedCustomObjectStatus({ ...metrics, namespace: 'shop', name: 'a-latency', body: { status, spec: { units: 'ignored' } } }, merge);
  t.same(patched.status, status, 'a write to /status changes the status');
  t.equal(patched.spec.units, 'ms', '…and only the status');
  t.equal(patched.metadata.generation, before.metadata.generation, 'a status change is not a new generation');
  const main = await custom.patchNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'a-latency', body: { status: { observedGeneration: 99 }, spec: { units: 's' } } }, merge);
  t.equal(main.status.observedGeneration, 2, 'a write to the main resource ignores status');
  t.equal(main.spec.units, 's');
  t.equal(main.metadata.generation, before.metadata.generation + 1);
  const [header, row] = (await cluster.kubectl(['get', 'metrics', '-n', 'shop', 'a-latency'])).stdout.split('\n');
  t.match(header, /READY/);
  t.match(row, /^a-latency\s+Gauge\s+True\s+\d+s$/, 'the READY column reads the condition');
});

t.test('client-node: conflicts, and errors as Status objects', async (t) => {
  const current = await custom.getNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'a-latency' });
  await custom.patchNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'a-latency', body: { spec: { units: 'min' } } }, merge);
  t.same(await failure(custom.replaceNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'a-latency', body: current })), {
    code: 409,
    reason: 'Conflict',
    message: 'Operation cannot be fulfilled on metrics.exp.dev "a-latency": the object has been modified; please apply your changes to the latest version and try again',
    kind: 'Status',
  });
  const stale = { status: { observedGeneration: 1 }, metadata: { resourceVersion: current.metadata.resourceVersion } };
  t.match(await failure(custom.patchNamespacedCustomObjectStatus({ ...metrics, namespace: 'shop', name: 'a-latency', body: stale }, merge)), { code: 409, reason: 'Conflict' });
  t.same(await failure(custom.createNamespacedCustomObject({ ...metrics, namespace: 'shop', body: metric('a-latency') })), {
    code: 409,
    reason: 'AlreadyExists',
    message: 'metrics.exp.dev "a-latency" already exists',
    kind: 'Status',
  });
  t.match(await failure(custom.createNamespacedCustomObject({ ...metrics, namespace: 'nowhere', body: { ...metric('x'), metadata: { name: 'x' } } })), {
    code: 404,
    message: 'namespaces "nowhere" not found',
  });
  t.match(await failure(custom.createNamespacedCustomObject({ ...metrics, namespace: 'shop', body: metric('c', { method: 'PUT' }) })), {
    code: 422,
    reason: 'Invalid',
    message: 'Metric.exp.dev "c" is invalid: spec.method: Unsupported value: "PUT": supported values: "GET", "POST"',
  });
  const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
  t.match(await failure(custom.patchNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'a-latency', body: { spec: {} } }, strategic)), {
    code: 415,
    reason: 'UnsupportedMediaType',
  });
});

t.test('client-node: JSON patch, and strategic merge patch on a built-in kind', async (t) => {
  const patched = await custom.patchNamespacedCustomObject({
    ...metrics,
    namespace: 'shop',
    name: 'a-latency',
    body: [
      { op: 'test', path: '/spec/units', value: 'min' },
      { op: 'replace', path: '/spec/units', value: 'h' },
      { op: 'add', path: '/spec/params', value: [{ name: 'query', value: 'up' }] },
    ],
  }, setHeaderOptions('Content-Type', PatchStrategy.JsonPatch));
  t.equal(patched.spec.units, 'h');
  t.same(patched.spec.params, [{ name: 'query', value: 'up' }]);
  await core.createNamespacedConfigMap({ namespace: 'shop', body: { metadata: { name: 'cfg', finalizers: ['a'] }, data: { a: '1', b: '2' } } });
  const configMap = await core.patchNamespacedConfigMap(
    { namespace: 'shop', name: 'cfg', body: { data: { b: null, c: '3' }, metadata: { finalizers: ['b'] } } },
    setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
  );
  t.same(configMap.data, { a: '1', c: '3' });
  t.same(configMap.metadata?.finalizers, ['a', 'b'], 'finalizers merge as a set');
});

t.test('client-node: a watch sees ADDED, MODIFIED and DELETED, and resumes from a resourceVersion', async (t) => {
  const start = (await custom.listNamespacedCustomObject({ ...metrics, namespace: 'shop' })).metadata.resourceVersion;
  const events: string[] = [];
  const watch = new Watch(admin);
  const request = await watch.watch(
    '/apis/exp.dev/v1alpha1/namespaces/shop/metrics',
    { resourceVersion: start },
    (type: string, object: { metadata: { name: string } }) => events.push(`${type} ${object.metadata.name}`),
    () => {},
  );
  await custom.createNamespacedCustomObject({ ...metrics, namespace: 'shop', body: metric('watched') });
  await custom.patchNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'watched', body: { spec: { units: 'ms' } } }, merge);
  await custom.deleteNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'watched' });
  const deadline = Date.now() + 10_000;
  while (events.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  request.abort();
  t.same(events, ['ADDED watched', 'MODIFIED watched', 'DELETED watched']);

  const replayed: string[] = [];
  const again = await watch.watch('/apis/exp.dev/v1alpha1/namespaces/shop/metrics', { resourceVersion: start }, (type: string, object: { metadata: { name: string } }) => replayed.push(`${type} ${object.metadata.name}`), () => {});
  while (replayed.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  again.abort();
  t.same(replayed, events, 'a watch from an earlier resourceVersion replays what happened since');
});

t.test('client-node: the service account gets 403 on a Secret without the RoleBinding, and the Secret with it', async (t) => {
  await core.createNamespacedSecret({ namespace: 'shop', body: { metadata: { name: 'creds' }, stringData: { token: 'abc' } } });
  const analytics = cluster.config('exp-analytics').makeApiClient(CoreV1Api);
  t.same(await failure(analytics.readNamespacedSecret({ namespace: 'shop', name: 'creds' })), {
    code: 403,
    reason: 'Forbidden',
    message: 'secrets "creds" is forbidden: User "system:serviceaccount:exp-system:exp-analytics" cannot get resource "secrets" in API group "" in the namespace "shop"',
    kind: 'Status',
  });
  await admin.makeApiClient((await import('@kubernetes/client-node')).RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace: 'shop',
    body: {
      metadata: { name: 'exp-secret-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'exp-secret-reader-analytics' },
      subjects: [{ kind: 'ServiceAccount', name: 'exp-analytics', namespace: 'exp-system' }],
    },
  });
  const secret = await analytics.readNamespacedSecret({ namespace: 'shop', name: 'creds' });
  t.equal(Buffer.from(secret.data!.token, 'base64').toString(), 'abc');
  t.match(await failure(analytics.listNamespacedSecret({ namespace: 'shop' })), { code: 403, message: /cannot list resource "secrets"/ }, 'the ClusterRole grants get only');
});
