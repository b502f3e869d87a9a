// Reading the protobuf request bodies of the real kubectl: each typed command's body decodes to the
// JSON object kubectl would have sent as JSON, which `--dry-run=client -o json` prints.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { BUILTIN_KINDS } from '../local/apiserver/builtin-kinds.ts';
import { apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from '../local/apiserver/discovery.ts';
import { decodeKubernetesProtobuf } from '../local/apiserver/protobuf.ts';
import { createTlsIdentity } from '../local/apiserver/tls.ts';
import { tempDir } from './support/processes.ts';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

type Asserts = Pick<typeof t, 'equal'>;

interface Captured {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}

function readBody(body: Buffer, contentType: string): Record<string, unknown> {
  return contentType === PROTOBUF ? decodeKubernetesProtobuf(body) : JSON.parse(body.toString('utf8'));
}

/**
 * A throwaway HTTPS server that records every request with a body and answers just enough for
 * kubectl to send it: discovery, a JSON echo of what it creates, and the stored object afterwards.
 */
async function startCaptureServer(tls: { certificate: string; privateKey: string }) {
  const captured: Captured[] = [];
  const objects = new Map<string, Record<string, unknown>>();
  const server: Server = createServer({ cert: tls.certificate, key: tls.privateKey }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const send = (code: number, body: unknown) => {
        res.writeHead(code, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const status = (code: number, message: string) => send(code, { kind: 'Status', apiVersion: 'v1', status: code < 300 ? 'Success' : 'Failure', code, message });
      const path = new URL(req.url ?? '/', 'https://127.0.0.1').pathname;
      const method = req.method ?? '';
      const contentType = req.headers['content-type'] ?? '';
      const body = Buffer.concat(chunks);
      if (body.length) captured.push({ method, path, contentType, body });
      if (method === 'GET' && path === '/version') return send(200, SERVER_VERSION);
      if (method === 'GET' && path === '/api') return send(200, apiVersions(`127.0.0.1:${port}`));
      if (method === 'GET' && path === '/apis') return send(200, apiGroupList(BUILTIN_KINDS));
      const groupVersion = /^\/(?:api|apis\/([^/]+))\/(v1)$/.exec(path);
      const resources = groupVersion && apiResourceList(BUILTIN_KINDS, groupVersion[1] ?? '', groupVersion[2]);
      if (method === 'GET' && resources) return send(200, resources);
      if (method === 'POST') {
        let object: Record<string, unknown>;
        try {
          object = readBody(body, contentType);
        } catch (error) {
          return status(415, (error as Error).message);
        }
        objects.set(`${path}/${(object.metadata as { name: string }).name}`, object);
        return send(201, object);
      }
      const object = objects.get(path);
      if (!object) return status(404, `${path} not found`);
      if (method === 'DELETE') {
        objects.delete(path);
        return status(200, 'deleted');
      }
      send(200, object);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${port}`,
    captured,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const tls = await createTlsIdentity();
const server = await startCaptureServer(tls);
const dir = tempDir('protobuf');
t.teardown(async () => {
  await server.close();
  dir.remove();
});
const kubeconfig = join(dir.path, 'kubeconfig');
writeFileSync(
  kubeconfig,
  `apiVersion: v1
kind: Config
clusters:
  - name: capture
    cluster:
      server: ${server.url}
      certificate-authority-data: ${Buffer.from(tls.caCertificate).toString('base64')}
users:
  - name: admin
    user:
      token: capture-token
contexts:
  - name: capture
    context: { cluster: capture, user: admin, namespace: default }
current-context: capture
`,
);

function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // KUBECACHEDIR: a fresh discovery cache, so every run asks this server.
  const env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir.path, 'cache') };
  return new Promise((resolve, reject) => {
    execFile('kubectl', args, { env, cwd: dir.path, timeout: 60_000 }, (error, stdout, stderr) => {
      if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
        return reject(new Error('kubectl is not installed; this test needs the real kubectl (v1.32) on PATH, e.g. /usr/bin/kubectl'));
      }
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The requests with a body that one kubectl command sends, after checking it succeeded. */
async function sent(t: Asserts, args: string[]): Promise<Captured[]> {
  const before = server.captured.length;
  const run = await kubectl(args);
  t.equal(run.code, 0, `kubectl ${args.join(' ')} succeeds`, { stderr: run.stderr });
  return server.captured.slice(before);
}

/** What `--dry-run=client -o json` prints, without its nulls: Go's JSON writes a zero metav1.Time
 * (metadata.creationTimestamp of every new object) as null, protobuf carries it as an empty
 * message, and the decoder leaves it out, as the server treats null and absent alike. */
async function dryRun(t: Asserts, args: string[]): Promise<unknown> {
  const run = await kubectl([...args, '--dry-run=client', '-o', 'json']);
  t.equal(run.code, 0, `kubectl ${args.join(' ')} --dry-run=client succeeds`, { stderr: run.stderr });
  return JSON.parse(run.stdout, (_key, value) => (value === null ? undefined : value));
}

// kubectl runs in the temporary directory, where this file is; its bytes are not UTF-8.
writeFileSync(join(dir.path, 'blob'), Buffer.from([0xff, 0xfe, 0x00, 0x80]));

const TYPED_CREATES = [
  ['create', 'namespace', 'shop'],
  ['create', 'secret', 'generic', 'creds', '-n', 'shop', '--from-literal=username=alice', '--from-literal=password=p@ss wörd'],
  ['create', 'secret', 'generic', 'token', '--type=exp.dev/token', '--from-literal=token=t0k3n'],
  ['create', 'configmap', 'cfg', '--from-literal=a=1', '--from-literal=empty='],
  ['create', 'configmap', 'blob', '--from-file=blob'],
  ['create', 'serviceaccount', 'sa1'],
  ['create', 'role', 'r', '--verb=get', '--resource=secrets', '--resource-name=prom-creds'],
  ['create', 'rolebinding', 'rb', '--clusterrole=exp-secret-reader-analytics', '--serviceaccount=exp-system:exp-analytics', '-n', 'shop'],
  ['create', 'clusterrolebinding', 'crb', '--clusterrole=view', '--user=alice', '--group=auditors'],
  ['create', 'clusterrole', 'cr', '--verb=get,list', '--resource=configmaps'],
  ['create', 'clusterrole', 'metrics-reader', '--verb=get', '--non-resource-url=/metrics'],
  ['create', 'clusterrole', 'monitoring', '--aggregation-rule=rbac.example.com/aggregate-to-monitoring=true'],
];

for (const args of TYPED_CREATES) {
  t.test(`protobuf: kubectl ${args.join(' ')} decodes to the object kubectl would send as JSON`, async (t) => {
    const expected = await dryRun(t, args);
    const [request, ...more] = await sent(t, args);
    t.same(more, [], 'one request with a body');
    t.equal(request.method, 'POST');
    t.equal(request.contentType, PROTOBUF, 'sent as protobuf');
    t.strictSame(decodeKubernetesProtobuf(request.body), expected);
  });
}

t.test('protobuf: kubectl auth reconcile sends the whole ObjectMeta, which decodes as written', async (t) => {
  const file = join(dir.path, 'cluster-role.yaml');
  writeFileSync(
    file,
    `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: exp-reader
  generateName: exp-
  uid: 7d4c1a7e-0000-4000-8000-000000000001
  resourceVersion: "42"
  generation: 3
  creationTimestamp: "2026-01-02T03:04:05Z"
  deletionTimestamp: "2026-01-03T00:00:00Z"
  deletionGracePeriodSeconds: 30
  labels: { app: exp, tier: "" }
  annotations: { note: "p@ss wörd" }
  ownerReferences:
    - { apiVersion: v1, kind: Namespace, name: shop, uid: u-1, controller: true, blockOwnerDeletion: false }
  finalizers: [exp.dev/cleanup]
aggregationRule:
  clusterRoleSelectors:
    - matchLabels: { rbac.example.com/aggregate-to-monitoring: "true" }
      matchExpressions:
        - { key: tier, operator: In, values: [gold, silver] }
        - { key: legacy, operator: DoesNotExist }
rules:
  - { apiGroups: [""], resources: [services, endpoints], resourceNames: [a], verbs: [get, list] }
  - { nonResourceURLs: [/metrics], verbs: [get] }
`,
  );
  const [request] = await sent(t, ['auth', 'reconcile', '-f', file]);
  t.equal(request.contentType, PROTOBUF);
  t.strictSame(decodeKubernetesProtobuf(request.body), parse(readFileSync(file, 'utf8')));
});

// The secret shop/creds of these two is the one `kubectl create secret generic creds` stored above.
t.test('protobuf: kubectl label sends a JSON merge patch', async (t) => {
  const [request] = await sent(t, ['label', 'secret', 'creds', '-n', 'shop', 'tier=gold']);
  t.match(request, { method: 'PATCH', path: '/api/v1/namespaces/shop/secrets/creds', contentType: 'application/merge-patch+json' });
  t.strictSame(JSON.parse(request.body.toString()), { metadata: { labels: { tier: 'gold' } } });
});

t.test('protobuf: kubectl delete sends its DeleteOptions as JSON, without kind', async (t) => {
  const [request] = await sent(t, ['delete', 'secret', 'creds', '-n', 'shop']);
  t.match(request, { method: 'DELETE', path: '/api/v1/namespaces/shop/secrets/creds', contentType: 'application/json' });
  t.strictSame(JSON.parse(request.body.toString()), { propagationPolicy: 'Background' });
});

t.test('protobuf: kubectl create -f sends a CustomResourceDefinition as JSON', async (t) => {
  // --validate=false: validation would fetch the OpenAPI documents, which this server does not serve.
  const [request] = await sent(t, ['create', '--validate=false', '-f', new URL('../crds/metric.yaml', import.meta.url).pathname]);
  t.match(request, { method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', contentType: 'application/json' });
});

// Bodies for what kubectl's commands never set, laid out as Go's encoder lays them out: every
// non-pointer field written, empty or not.
const varint = (value: number | bigint): number[] => {
  const bytes: number[] = [];
  let rest = BigInt.asUintN(64, BigInt(value));
  do {
    bytes.push(Number(rest & 0x7fn) | (rest > 0x7fn ? 0x80 : 0));
    rest >>= 7n;
  } while (rest);
  return bytes;
};
const bytes = (field: number, value: string | Buffer) => {
  const data = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.from([...varint((field << 3) | 2), ...varint(data.length), ...data]);
};
const int = (field: number, value: number | boolean) => Buffer.from([...varint(field << 3), ...varint(Number(value))]);
const message = (...fields: Buffer[]) => Buffer.concat(fields);
const entry = (field: number, key: string, value: string | Buffer) => bytes(field, message(bytes(1, key), bytes(2, value)));
const time = (field: number, iso: string, nanos = 0) => bytes(field, message(int(1, Date.parse(iso) / 1000), int(2, nanos)));
const ZERO_TIME = Buffer.alloc(0);
const meta = (name: string, namespace = '') =>
  bytes(1, message(bytes(1, name), bytes(2, ''), bytes(3, namespace), bytes(4, ''), bytes(5, ''), bytes(6, ''), int(7, 0), bytes(8, ZERO_TIME)));
const body = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from('k8s\0'), bytes(1, message(bytes(1, apiVersion), bytes(2, kind))), bytes(2, raw), bytes(3, ''), bytes(4, '')]);

t.test('protobuf: an Event keeps its times, with microseconds in eventTime', async (t) => {
  const event = message(
    meta('latency.1', 'shop'),
    bytes(2, message(bytes(1, 'Metric'), bytes(2, 'shop'), bytes(3, 'latency'), bytes(4, ''), bytes(5, 'exp.dev/v1alpha1'), bytes(6, ''), bytes(7, ''))),
    bytes(3, 'Promoted'),
    bytes(4, 'candidate promoted'),
    bytes(5, message(bytes(1, 'exp-controller'), bytes(2, ''))),
    time(6, '2026-01-02T03:04:05Z', 999_999_999),
    time(7, '2026-01-02T03:05:00Z'),
    int(8, 3),
    bytes(9, 'Normal'),
    time(10, '2026-01-02T03:04:05Z', 123_456_789),
    bytes(11, message(int(1, 2), time(2, '2026-01-02T03:05:00Z', 1_000))),
    bytes(12, 'Promote'),
    bytes(13, message(bytes(1, 'Secret'), bytes(2, 'shop'), bytes(3, 'prom-creds'))),
    bytes(14, 'exp.dev/controller'),
    bytes(15, 'exp-controller-0'),
  );
  t.strictSame(decodeKubernetesProtobuf(body('v1', 'Event', event)), {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'latency.1', namespace: 'shop' },
    involvedObject: { kind: 'Metric', namespace: 'shop', name: 'latency', apiVersion: 'exp.dev/v1alpha1' },
    reason: 'Promoted',
    message: 'candidate promoted',
    source: { component: 'exp-controller' },
    firstTimestamp: '2026-01-02T03:04:05Z',
    lastTimestamp: '2026-01-02T03:05:00Z',
    count: 3,
    type: 'Normal',
    eventTime: '2026-01-02T03:04:05.123456Z',
    series: { count: 2, lastObservedTime: '2026-01-02T03:05:00.000001Z' },
    action: 'Promote',
    related: { kind: 'Secret', namespace: 'shop', name: 'prom-creds' },
    reportingComponent: 'exp.dev/controller',
    reportingInstance: 'exp-controller-0',
  });
});

t.test('protobuf: fields without omitempty are written even when empty, zero times are left out', async (t) => {
  const event = message(meta('bare', 'shop'), bytes(2, message()), bytes(5, message()), bytes(6, ZERO_TIME), bytes(7, ZERO_TIME), int(8, 0), bytes(10, ZERO_TIME));
  t.strictSame(decodeKubernetesProtobuf(body('v1', 'Event', event)), {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'bare', namespace: 'shop' },
    involvedObject: {},
    source: {},
    reportingComponent: '',
    reportingInstance: '',
  });
});

t.test('protobuf: pointers keep their zero values, as in DeleteOptions', async (t) => {
  const options = message(int(1, 0), bytes(2, message(bytes(1, 'u-1'))), int(3, false), bytes(4, 'Foreground'), bytes(5, 'All'), int(6, false));
  t.strictSame(decodeKubernetesProtobuf(body('rbac.authorization.k8s.io/v1', 'DeleteOptions', options)), {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'DeleteOptions',
    gracePeriodSeconds: 0,
    preconditions: { uid: 'u-1' },
    orphanDependents: false,
    propagationPolicy: 'Foreground',
    dryRun: ['All'],
    ignoreStoreReadErrorWithClusterBreakingPotential: false,
  });
});

t.test('protobuf: the Namespace, Secret, ConfigMap and ServiceAccount fields kubectl create leaves unset', async (t) => {
  const namespace = message(
    meta('shop'),
    bytes(2, message(bytes(1, 'kubernetes'))),
    bytes(3, message(bytes(1, 'Terminating'), bytes(2, message(bytes(1, 'NamespaceContentRemaining'), bytes(2, 'True'), time(4, '2026-01-02T03:04:05Z'), bytes(5, 'SomeResourcesRemain'), bytes(6, ''))))),
  );
  t.strictSame(decodeKubernetesProtobuf(body('v1', 'Namespace', namespace)), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'shop' },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Terminating', conditions: [{ type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'SomeResourcesRemain' }] },
  });

  const secret = message(meta('prom-creds', 'shop'), entry(2, 'raw', Buffer.from([0, 0xff])), bytes(3, 'Opaque'), entry(4, 'password', 's3cret'), int(5, true));
  t.strictSame(decodeKubernetesProtobuf(body('v1', 'Secret', secret)), {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'prom-creds', namespace: 'shop' },
    data: { raw: 'AP8=' },
    type: 'Opaque',
    stringData: { password: 's3cret' },
    immutable: true,
  });

  const configMap = message(meta('cfg', 'shop'), int(4, false));
  t.strictSame(decodeKubernetesProtobuf(body('v1', 'ConfigMap', configMap)), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop' }, immutable: false });

  const serviceAccount = message(meta('exp-analytics', 'exp-system'), bytes(2, message(bytes(1, 'Secret'), bytes(3, 'token'))), bytes(3, message(bytes(1, 'registry'))), int(4, false));
  t.strictSame(decodeKubernetesProtobuf(body('v1', 'ServiceAccount', serviceAccount)), {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'exp-analytics', namespace: 'exp-system' },
    secrets: [{ kind: 'Secret', name: 'token' }],
    imagePullSecrets: [{ name: 'registry' }],
    automountServiceAccountToken: false,
  });
});

t.test('protobuf: unknown fields are skipped, whatever their wire type', async (t) => {
  const fixed64 = Buffer.from([...varint((90 << 3) | 1), 1, 2, 3, 4, 5, 6, 7, 8]);
  const fixed32 = Buffer.from([...varint((91 << 3) | 5), 1, 2, 3, 4]);
  const secret = message(meta('s', 'shop'), int(92, 7), fixed64, bytes(93, 'newer field'), fixed32, bytes(3, 'Opaque'));
  t.strictSame(decodeKubernetesProtobuf(body('v1', 'Secret', secret)), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'shop' }, type: 'Opaque' });
});

t.test('protobuf: a body that is not Kubernetes protobuf, or of a kind not read, is refused with what to send', async (t) => {
  t.throws(() => decodeKubernetesProtobuf(Buffer.from('{"kind":"Secret"}')), { message: /does not start with "k8s\\0"; send it as JSON/ });
  t.throws(() => decodeKubernetesProtobuf(body('apps/v1', 'Deployment', message(meta('web')))), {
    message: /cannot read apiVersion "apps\/v1" kind "Deployment" from protobuf; protobuf is read only for v1 Namespace, .*; send it as JSON/,
  });
  t.throws(() => decodeKubernetesProtobuf(body('apiextensions.k8s.io/v1', 'CustomResourceDefinition', message(meta('metrics.exp.dev')))), { message: /cannot read/ });
  t.throws(() => decodeKubernetesProtobuf(body('v1', 'Secret', meta('s')).subarray(0, 30)), { message: /truncated/ });
});
