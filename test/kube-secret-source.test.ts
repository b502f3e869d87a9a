// Secrets through the Kubernetes API, as the functions' service account, on the local control plane.
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import t from 'tap';
import { kubeSecretSource } from '../shared/kube/kube-secret-source.ts';
import { localCluster } from './support/control-plane.ts';

const cluster = await localCluster(t);
const admin = cluster.config().makeApiClient(CoreV1Api);
for (const namespace of ['shop', 'payments']) {
  await admin.createNamespace({ body: { metadata: { name: namespace } } });
  await admin.createNamespacedSecret({ namespace, body: { metadata: { name: 'prom' }, stringData: { username: 'alice', password: 'pä55 word' } } });
}
await cluster.config().makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
  namespace: 'shop',
  body: {
    metadata: { name: 'exp-secret-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'exp-secret-reader-analytics' },
    subjects: [{ kind: 'ServiceAccount', name: 'exp-analytics', namespace: 'exp-system' }],
  },
});
const source = kubeSecretSource(cluster.config('exp-analytics').makeApiClient(CoreV1Api));

t.test('kube secrets: data is read through CoreV1 as the service account, and decoded', async (t) => {
  t.same(await source.read({ namespace: 'shop', name: 'prom' }), { kind: 'found', data: { username: 'alice', password: 'pä55 word' } });
});

t.test('kube secrets: a 403 says which RoleBinding is missing', async (t) => {
  t.same(await source.read({ namespace: 'payments', name: 'prom' }), {
    kind: 'unavailable',
    reason:
      'secret payments/prom: forbidden; create a RoleBinding of ClusterRole exp-secret-reader-analytics ' +
      'for service account exp-system/exp-analytics in namespace payments',
  });
});

t.test('kube secrets: a missing secret and an unreachable API are reasons', async (t) => {
  t.same(await source.read({ namespace: 'shop', name: 'nope' }), { kind: 'unavailable', reason: 'secret shop/nope not found' });
  await cluster.plane.stop();
  t.same(await source.read({ namespace: 'shop', name: 'prom' }), {
    kind: 'unavailable',
    reason: 'secret shop/prom: cannot reach the Kubernetes API (ECONNREFUSED)',
  });
});
