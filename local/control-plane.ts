// `exp local up`: the local control plane. For now the API server, with the namespaces, the
// functions' service account, the secret-reader ClusterRole and the stack CRDs a cluster with
// exp installed would have.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { ANALYTICS_SERVICE_ACCOUNT, SECRET_READER_CLUSTER_ROLE } from '../shared/kube/kube-secret-source.ts';
import { serviceAccountUser, type User } from './apiserver/rbac.ts';
import { ApiServer } from './apiserver/server.ts';
import { createTlsIdentity, type TlsIdentity } from './apiserver/tls.ts';
import type { KubeObject } from './apiserver/table.ts';

export interface ControlPlaneOptions {
  port?: number;
  kubeconfig?: string;
  dataDir?: string;
}

export interface ControlPlane {
  url: string;
  kubeconfig: string;
  apiServer: ApiServer;
  stop: () => Promise<void>;
}

export const DEFAULT_KUBECONFIG = '.local/kubeconfig';
export const ADMIN_USER: User = { name: 'exp-admin', groups: ['system:masters', 'system:authenticated'] };
export const ANALYTICS_USER = serviceAccountUser(ANALYTICS_SERVICE_ACCOUNT.namespace, ANALYTICS_SERVICE_ACCOUNT.name);

const STACK_CRDS = new URL('./stack-crds/', import.meta.url);

function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** What a cluster with exp installed holds before anyone applies anything. */
export function bootstrapObjects(): KubeObject[] {
  const stackCrds = existsSync(STACK_CRDS)
    ? readdirSync(STACK_CRDS)
        .filter((file) => file.endsWith('.yaml'))
        .sort()
        .flatMap((file) => parseAllDocuments(readFileSync(new URL(file, STACK_CRDS), 'utf8')).map((document) => document.toJS() as KubeObject))
    : [];
  return [
    namespace('default'),
    namespace('kube-system'),
    namespace('kube-public'),
    namespace(ANALYTICS_SERVICE_ACCOUNT.namespace),
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { ...ANALYTICS_SERVICE_ACCOUNT } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: SECRET_READER_CLUSTER_ROLE },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    },
    ...stackCrds,
  ];
}

interface Credentials {
  admin: string;
  analytics: string;
  tls: TlsIdentity;
}

/** Tokens and certificates survive restarts on the same data directory, so an old kubeconfig keeps working. */
async function credentials(dataDir: string | undefined): Promise<Credentials> {
  const fresh = async () => ({ admin: randomBytes(24).toString('base64url'), analytics: randomBytes(24).toString('base64url'), tls: await createTlsIdentity() });
  if (!dataDir) return fresh();
  const path = join(dataDir, 'credentials.json');
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as Credentials;
  mkdirSync(dataDir, { recursive: true });
  const created = await fresh();
  writeFileSync(path, JSON.stringify(created), { mode: 0o600 });
  return created;
}

export function kubeconfigYaml(url: string, credentials: Credentials): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'exp-local', cluster: { server: url, 'certificate-authority-data': Buffer.from(credentials.tls.caCertificate).toString('base64') } }],
    users: [
      { name: ADMIN_USER.name, user: { token: credentials.admin } },
      { name: 'exp-analytics', user: { token: credentials.analytics } },
    ],
    contexts: [
      { name: 'exp-local', context: { cluster: 'exp-local', user: ADMIN_USER.name, namespace: 'default' } },
      { name: 'exp-analytics', context: { cluster: 'exp-local', user: 'exp-analytics', namespace: ANALYTICS_SERVICE_ACCOUNT.namespace } },
    ],
    'current-context': 'exp-local',
  });
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const secrets = await credentials(options.dataDir);
  const users = new Map([
    [secrets.admin, ADMIN_USER],
    [secrets.analytics, ANALYTICS_USER],
  ]);
  const apiServer = await ApiServer.start({ port: options.port, dataDir: options.dataDir, users, bootstrap: bootstrapObjects(), tls: secrets.tls });
  const kubeconfig = resolve(options.kubeconfig ?? DEFAULT_KUBECONFIG);
  mkdirSync(dirname(kubeconfig), { recursive: true });
  writeFileSync(kubeconfig, kubeconfigYaml(apiServer.url, secrets), { mode: 0o600 });
  return { url: apiServer.url, kubeconfig, apiServer, stop: () => apiServer.close() };
}
