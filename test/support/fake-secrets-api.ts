// Stands in for the Kubernetes API server's Secret endpoint until the local control plane exists:
// answers `GET /api/v1/namespaces/{ns}/secrets/{name}` as the real server documents it, including the
// Status objects of 403 and 404, so the real @kubernetes/client-node can be used against it.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startRecordingServer, type RecordingServer } from './recording-server.ts';

export const SERVICE_ACCOUNT_TOKEN = 'sa-token-for-tests';
const SERVICE_ACCOUNT = 'system:serviceaccount:exp-system:exp-analytics';

export interface StoredSecret {
  namespace: string;
  name: string;
  data: Record<string, string>;
}

function status(code: number, reason: string, message: string, name: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details: { name, kind: 'secrets' }, code };
}

/** `readable`: namespaces where the service account may read secrets (a RoleBinding exists). */
export async function startFakeSecretsApi(secrets: StoredSecret[], readable: string[]): Promise<RecordingServer & { coreV1: CoreV1Api }> {
  const server = await startRecordingServer((request) => {
    const match = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(request.path);
    if (request.method !== 'GET' || !match) return { status: 404, body: status(404, 'NotFound', 'the server could not find the requested resource', '') };
    const [, namespace, name] = match;
    if (request.headers.authorization !== `Bearer ${SERVICE_ACCOUNT_TOKEN}`) {
      return { status: 401, body: status(401, 'Unauthorized', 'Unauthorized', name) };
    }
    if (!readable.includes(namespace)) {
      const message = `secrets "${name}" is forbidden: User "${SERVICE_ACCOUNT}" cannot get resource "secrets" in API group "" in the namespace "${namespace}"`;
      return { status: 403, body: status(403, 'Forbidden', message, name) };
    }
    const secret = secrets.find((candidate) => candidate.namespace === namespace && candidate.name === name);
    if (!secret) return { status: 404, body: status(404, 'NotFound', `secrets "${name}" not found`, name) };
    const data = Object.fromEntries(Object.entries(secret.data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
    return {
      body: { kind: 'Secret', apiVersion: 'v1', metadata: { name, namespace, uid: 'f3b7c1de-0000-4000-8000-000000000001', resourceVersion: '42' }, type: 'Opaque', data },
    };
  });
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'fake', server: server.url, skipTLSVerify: true }],
    users: [{ name: 'exp-analytics', token: SERVICE_ACCOUNT_TOKEN }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'exp-analytics' }],
    currentContext: 'fake',
  });
  return { ...server, coreV1: config.makeApiClient(CoreV1Api) };
}
