import t from 'tap';
import { kubeSecretSource } from '../shared/kube/kube-secret-source.ts';
import { startFakeSecretsApi, SERVICE_ACCOUNT_TOKEN } from './support/fake-secrets-api.ts';

t.test('kube secrets: data is read through CoreV1 and decoded', async (t) => {
  const api = await startFakeSecretsApi([{ namespace: 'shop', name: 'prom', data: { username: 'alice', password: 'pä55 word' } }], ['shop']);
  t.teardown(api.close);
  const source = kubeSecretSource(api.coreV1);
  t.same(await source.read({ namespace: 'shop', name: 'prom' }), { kind: 'found', data: { username: 'alice', password: 'pä55 word' } });
  t.equal(api.requests[0].path, '/api/v1/namespaces/shop/secrets/prom');
  t.equal(api.requests[0].headers.authorization, `Bearer ${SERVICE_ACCOUNT_TOKEN}`);
});

t.test('kube secrets: a 403 says which RoleBinding is missing', async (t) => {
  const api = await startFakeSecretsApi([{ namespace: 'payments', name: 'prom', data: { token: 'x' } }], ['shop']);
  t.teardown(api.close);
  t.same(await kubeSecretSource(api.coreV1).read({ namespace: 'payments', name: 'prom' }), {
    kind: 'unavailable',
    reason:
      'secret payments/prom: forbidden; create a RoleBinding of ClusterRole exp-secret-reader-analytics ' +
      'for service account exp-system/exp-analytics in namespace payments',
  });
});

t.test('kube secrets: a missing secret and an unreachable API are reasons', async (t) => {
  const api = await startFakeSecretsApi([], ['shop']);
  const source = kubeSecretSource(api.coreV1);
  t.same(await source.read({ namespace: 'shop', name: 'nope' }), { kind: 'unavailable', reason: 'secret shop/nope not found' });
  await api.close();
  t.same(await source.read({ namespace: 'shop', name: 'nope' }), {
    kind: 'unavailable',
    reason: 'secret shop/nope: cannot reach the Kubernetes API (ECONNREFUSED)',
  });
});
