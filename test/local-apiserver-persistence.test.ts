// With --data-dir, every acknowledged write survives kill -9: write through the API, kill the
// process, start again on the same directory, read everything back.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, Watch } from '@kubernetes/client-node';
import t from 'tap';
import { clusterProcess, type ClusterProcess } from './support/control-plane.ts';
import { tempDir } from './support/processes.ts';

const dir = tempDir('persist');
t.teardown(dir.remove);
const dataDir = `${dir.path}/data`;
const running: ClusterProcess[] = [];
t.teardown(() => running.forEach((cluster) => cluster.process.kill('SIGKILL')));

async function start(): Promise<ClusterProcess> {
  const cluster = await clusterProcess(['--data-dir', dataDir, '--api-server-only'], dir.path);
  running.push(cluster);
  return cluster;
}

function kill9(cluster: ClusterProcess): Promise<void> {
  return new Promise((resolve) => {
    cluster.process.once('exit', () => resolve());
    cluster.process.kill('SIGKILL');
  });
}

const metrics = { group: 'exp.dev', version: 'v1alpha1', plural: 'metrics' };
let lastResourceVersion = '';

t.test('persistence: writes acknowledged before kill -9 are there after a restart', async (t) => {
  const first = await start();
  t.equal((await first.kubectl(['apply', '-f', 'crds/'])).code, 0);
  t.equal((await first.kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n')).code, 0);
  const custom = first.config().makeApiClient(CustomObjectsApi);
  const core = first.config().makeApiClient(CoreV1Api);
  await core.createNamespacedSecret({ namespace: 'shop', body: { metadata: { name: 'creds' }, stringData: { password: 'kept' } } });
  for (let i = 0; i < 40; i++) {
    await custom.createNamespacedCustomObject({
      ...metrics,
      namespace: 'shop',
      body: { apiVersion: 'exp.dev/v1alpha1', kind: 'Metric', metadata: { name: `m${i}` }, spec: { mock: [{ name: 'v1', level: i }] } },
    });
  }
  await custom.deleteNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'm0' });
  const status = await custom.patchNamespacedCustomObjectStatus(
    { ...metrics, namespace: 'shop', name: 'm39', body: { status: { observedGeneration: 1 } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  lastResourceVersion = status.metadata.resourceVersion;
  await kill9(first);

  const second = await start();
  const names = (await second.config().makeApiClient(CustomObjectsApi).listNamespacedCustomObject({ ...metrics, namespace: 'shop' })).items.map(
    (item: { metadata: { name: string } }) => item.metadata.name,
  );
  t.same(names.sort(), Array.from({ length: 39 }, (_, i) => `m${i + 1}`).sort(), 'every created metric but the deleted one');
  const m39 = await second.config().makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ ...metrics, namespace: 'shop', name: 'm39' });
  t.same(m39.status, { observedGeneration: 1 });
  t.equal(m39.metadata.resourceVersion, lastResourceVersion, 'resourceVersions are kept');
  const secret = await second.config().makeApiClient(CoreV1Api).readNamespacedSecret({ namespace: 'shop', name: 'creds' });
  t.equal(Buffer.from(secret.data!.password, 'base64').toString(), 'kept');
  t.match((await second.kubectl(['get', 'metrics', '-n', 'shop', 'm5'])).stdout, /^m5\s+Gauge\s+\s+\d+s$/m, 'the CRD is served again');

  const created = await second.config().makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...metrics,
    namespace: 'shop',
    body: { apiVersion: 'exp.dev/v1alpha1', kind: 'Metric', metadata: { name: 'after' }, spec: { mock: [{ name: 'v1', level: 1 }] } },
  });
  t.ok(Number(created.metadata.resourceVersion) > Number(lastResourceVersion), 'resourceVersions go on increasing');
  await kill9(second);
});

t.test('persistence: a watch from before the restart gets 410 Expired', async (t) => {
  const third = await start();
  const events: { type: string; object: { code?: number; reason?: string } }[] = [];
  const request = await new Watch(third.config()).watch(
    '/apis/exp.dev/v1alpha1/namespaces/shop/metrics',
    { resourceVersion: '5' },
    (type: string, object: { code?: number; reason?: string }) => events.push({ type, object }),
    () => {},
  );
  const deadline = Date.now() + 10_000;
  while (!events.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  request.abort();
  t.match(events, [{ type: 'ERROR', object: { code: 410, reason: 'Expired' } }]);
  await kill9(third);
});
