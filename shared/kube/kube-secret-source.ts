// Secrets read through the Kubernetes API as the service account the functions run as.
import type { CoreV1Api } from '@kubernetes/client-node';
import { formatRef, secretData, type SecretRead, type SecretRef, type SecretSource } from '../metrics/secret-source.ts';

export const SECRET_READER_CLUSTER_ROLE = 'exp-secret-reader-analytics';
export const ANALYTICS_SERVICE_ACCOUNT = { namespace: 'exp-system', name: 'exp-analytics' };

export function forbiddenReason(ref: SecretRef): string {
  const account = `${ANALYTICS_SERVICE_ACCOUNT.namespace}/${ANALYTICS_SERVICE_ACCOUNT.name}`;
  return (
    `secret ${formatRef(ref)}: forbidden; create a RoleBinding of ClusterRole ${SECRET_READER_CLUSTER_ROLE} ` +
    `for service account ${account} in namespace ${ref.namespace}`
  );
}

export function kubeSecretSource(api: CoreV1Api): SecretSource {
  return {
    async read(ref: SecretRef): Promise<SecretRead> {
      try {
        const secret = await api.readNamespacedSecret({ name: ref.name, namespace: ref.namespace });
        return { kind: 'found', data: secretData(secret) };
      } catch (error) {
        return { kind: 'unavailable', reason: readFailure(ref, error) };
      }
    },
  };
}

function readFailure(ref: SecretRef, error: unknown): string {
  const { code, message, cause } = error as { code?: number; message?: string; cause?: { code?: string } };
  switch (code) {
    case 403:
      return forbiddenReason(ref);
    case 404:
      return `secret ${formatRef(ref)} not found`;
    case 401:
      return `secret ${formatRef(ref)}: the Kubernetes API refused the service account's credentials (401)`;
  }
  if (typeof code === 'number') return `secret ${formatRef(ref)}: the Kubernetes API answered HTTP ${code}`;
  return `secret ${formatRef(ref)}: cannot reach the Kubernetes API (${cause?.code ?? message?.split('\n')[0] ?? 'unknown error'})`;
}
