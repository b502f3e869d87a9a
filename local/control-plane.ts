// `exp local up`: a local cluster with exp installed. The API server holds what `kubectl apply -f
// crds/ && kubectl apply -k knative/` would create; the event plane plays the ApiServerSource,
// PingSource, Broker and Triggers of knative/; each function runs as its own process.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { stringify } from 'yaml';
import { ANALYTICS_SERVICE_ACCOUNT } from '../shared/kube/kube-secret-source.ts';
import { serviceAccountUser, type User } from './apiserver/rbac.ts';
import { ApiServer } from './apiserver/server.ts';
import type { KubeObject } from './apiserver/table.ts';
import { createTlsIdentity, type TlsIdentity } from './apiserver/tls.ts';
import { LocalApiServerSource } from './event-plane/api-server-source.ts';
import { Broker } from './event-plane/broker.ts';
import { KNATIVE_DIR, readEventingManifests, readManifests } from './event-plane/manifests.ts';
import { startPingSource } from './event-plane/ping-source.ts';
import { FunctionProcesses, type RunningFunction } from './function-processes.ts';

export interface ControlPlaneOptions {
  port?: number;
  kubeconfig?: string;
  dataDir?: string;
  /** `apiserver` runs the API server alone, without exp installed (for tests of the API server). */
  components?: 'all' | 'apiserver';
  /** Overrides the PingSource schedule: a ping every N seconds. */
  pingSeconds?: number;
  log?: Logger;
}

export interface ControlPlane {
  url: string;
  kubeconfig: string;
  apiServer: ApiServer;
  functions: RunningFunction[];
  broker?: Broker;
  stop: () => Promise<void>;
}

export const DEFAULT_KUBECONFIG = '.local/kubeconfig';
export const DEFAULT_STATE_DIR = '.local';
export const ADMIN_USER: User = { name: 'exp-admin', groups: ['system:masters', 'system:authenticated'] };
export const ANALYTICS_USER = serviceAccountUser(ANALYTICS_SERVICE_ACCOUNT.namespace, ANALYTICS_SERVICE_ACCOUNT.name);

const STACK_CRDS = new URL('./stack-crds/', import.meta.url);
const EXP_CRDS = new URL('../crds/', import.meta.url);
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** JSON as Go's encoding/json writes a map: keys sorted, <, > and & escaped. */
function goJson(value: unknown): string {
  const sorted = (node: unknown): unknown =>
    Array.isArray(node)
      ? node.map(sorted)
      : node && typeof node === 'object'
        ? Object.fromEntries(Object.keys(node).sort().map((key) => [key, sorted((node as Record<string, unknown>)[key])]))
        : node;
  return JSON.stringify(sorted(value)).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The object as `kubectl apply` leaves it, so that applying the same file later changes nothing. */
function asApplied(object: KubeObject): KubeObject {
  const applied = { ...object, metadata: { ...object.metadata, annotations: { ...(object.metadata.annotations as object) } } };
  return { ...object, metadata: { ...object.metadata, annotations: { ...(object.metadata.annotations as object), [LAST_APPLIED]: `${goJson(applied)}\n` } } };
}

/** What the API server holds before anyone applies anything. */
export function bootstrapObjects(components: 'all' | 'apiserver'): KubeObject[] {
  const namespaces = ['default', 'kube-system', 'kube-public'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  const install = readManifests<KubeObject>(KNATIVE_DIR, ['namespace.yaml', 'rbac.yaml']);
  const exp = components === 'all' ? readManifests<KubeObject>(EXP_CRDS).map(asApplied) : [];
  return [...namespaces, ...install.map(asApplied), ...readManifests<KubeObject>(STACK_CRDS), ...exp];
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

export function kubeconfigYaml(url: string, credentials: Credentials, currentContext = 'exp-local'): string {
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
    'current-context': currentContext,
  });
}

function writePrivate(path: string, content: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const components = options.components ?? 'all';
  const secrets = await credentials(options.dataDir);
  const users = new Map([
    [secrets.admin, ADMIN_USER],
    [secrets.analytics, ANALYTICS_USER],
  ]);
  const apiServer = await ApiServer.start({ port: options.port, dataDir: options.dataDir, users, bootstrap: bootstrapObjects(components), tls: secrets.tls });
  const kubeconfig = writePrivate(resolve(options.kubeconfig ?? DEFAULT_KUBECONFIG), kubeconfigYaml(apiServer.url, secrets));
  const plane: ControlPlane = { url: apiServer.url, kubeconfig, apiServer, functions: [], stop: () => apiServer.close() };
  if (components === 'apiserver') return plane;

  const log = options.log ?? (await import('../shared/events/logger.ts')).createLogger('exp-local', process.env.LOG_LEVEL ?? 'warn');
  const stateDir = resolve(options.dataDir ?? DEFAULT_STATE_DIR);
  const functionsKubeconfig = writePrivate(join(stateDir, 'functions', 'kubeconfig'), kubeconfigYaml(apiServer.url, secrets, 'exp-analytics'));
  const manifests = readEventingManifests();
  let functions: FunctionProcesses | undefined;
  const broker = await Broker.start({
    namespace: manifests.namespace,
    name: manifests.broker.name,
    delivery: manifests.broker.delivery,
    triggers: manifests.triggers,
    subscriberUrl: (service) => functions?.url(service),
    log: log.child({ component: 'broker' }),
  });
  functions = await FunctionProcesses.start({
    functions: manifests.functions,
    env: { K_SINK: broker.url, KUBECONFIG: functionsKubeconfig, ...(process.env.LOG_LEVEL ? { LOG_LEVEL: process.env.LOG_LEVEL } : {}) },
    logDir: join(stateDir, 'functions', 'logs'),
    log,
  });
  const sourceKube = new KubeConfig();
  sourceKube.loadFromString(kubeconfigYaml(apiServer.url, secrets));
  const sources = manifests.apiServerSources.map((manifest) => new LocalApiServerSource({ manifest, kube: sourceKube, sink: (event) => broker.publish(event), log }));
  await Promise.all(sources.map((source) => source.start()));
  const pings = manifests.pingSources.map((source) => startPingSource(source, (event) => broker.publish(event), options.pingSeconds));
  return {
    ...plane,
    functions: functions.running,
    broker,
    stop: async () => {
      for (const ping of pings) ping.stop();
      for (const source of sources) source.stop();
      await functions!.stop();
      await broker.close();
      await apiServer.close();
    },
  };
}
