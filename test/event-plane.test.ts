// The local event plane: the events its ApiServerSource and PingSource emit are the Knative ones,
// and it is configured from knative/, whose manifests are valid under the upstream CRDs.
import { readFileSync } from 'node:fs';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import t from 'tap';
import { pino } from 'pino';
import { parse, parseAllDocuments } from 'yaml';
import type { Event } from '../shared/events/cloudevent-http.ts';
import { formatFieldError, schemaValidator, storageSchema, type CustomResourceDefinition } from '../shared/kube/crd-schema.ts';
import { LocalApiServerSource } from '../local/event-plane/api-server-source.ts';
import { isoDurationMs, readEventingManifests } from '../local/event-plane/manifests.ts';
import { pingEvent, startPingSource } from '../local/event-plane/ping-source.ts';
import { localCluster } from './support/control-plane.ts';
import { until } from './support/processes.ts';

const quiet = pino({ level: 'silent' });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

t.test('ApiServerSource: one event per watch notification, with exactly the Knative attributes', async (t) => {
  const cluster = await localCluster(t);
  t.equal((await cluster.kubectl(['apply', '-f', 'crds/'])).code, 0);
  t.equal((await cluster.kubectl(['create', 'namespace', 'shop'])).code, 0);
  const custom = cluster.config().makeApiClient(CustomObjectsApi);
  const metrics = { group: 'exp.dev', version: 'v1alpha1', plural: 'metrics', namespace: 'shop' };
  const metric = (name: string) => ({ apiVersion: 'exp.dev/v1alpha1', kind: 'Metric', metadata: { name }, spec: { mock: [{ name: 'v1', level: 1 }] } });
  await custom.createNamespacedCustomObject({ ...metrics, body: metric('before') });

  const events: Event[] = [];
  const [manifest] = readEventingManifests().apiServerSources;
  const source = new LocalApiServerSource({ manifest, kube: cluster.config('exp-analytics'), sink: (event) => events.push(event), log: quiet });
  await source.start();
  t.teardown(() => source.stop());

  const created = await custom.createNamespacedCustomObject({ ...metrics, body: metric('latency') });
  const updated = await custom.patchNamespacedCustomObjectStatus(
    { ...metrics, name: 'latency', body: { status: { observedGeneration: 1 } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await custom.deleteNamespacedCustomObject({ ...metrics, name: 'latency' });
  await until(() => events.length >= 3, 'three events');
  await new Promise((resolve) => setTimeout(resolve, 200));

  t.same(events.map((event) => event.type), ['dev.knative.apiserver.resource.add', 'dev.knative.apiserver.resource.update', 'dev.knative.apiserver.resource.delete'], 'nothing for the object that existed before');
  for (const event of events) {
    const { id, time, data, ...attributes } = JSON.parse(JSON.stringify(event));
    t.match(id, UUID);
    t.match(time, /^\d{4}-\d\d-\d\dT/);
    t.same(attributes, {
      type: event.type,
      source: cluster.plane.url,
      specversion: '1.0',
      subject: '/apis/exp.dev/v1alpha1/namespaces/shop/metrics/latency',
      datacontenttype: 'application/json',
      kind: 'Metric',
      apiversion: 'exp.dev/v1alpha1',
      name: 'latency',
      namespace: 'shop',
    });
  }
  t.equal(new Set(events.map((event) => event.id)).size, 3, 'each event has a fresh id');
  t.same(events[0].data, created, 'the data is the whole object');
  t.same(events[1].data, updated, 'a status write sends an update');
  t.equal((events[2].data as { metadata: { name: string } }).metadata.name, 'latency');
});

t.test('ApiServerSource: a kind whose CRD does not exist yet is watched once it appears', async (t) => {
  const cluster = await localCluster(t);
  const events: Event[] = [];
  const [manifest] = readEventingManifests().apiServerSources;
  const source = new LocalApiServerSource({ manifest, kube: cluster.config('exp-analytics'), sink: (event) => events.push(event), log: quiet });
  await source.start();
  t.teardown(() => source.stop());
  await cluster.kubectl(['apply', '-f', 'crds/']);
  await cluster.kubectl(['create', 'namespace', 'shop']);
  const body = { apiVersion: 'exp.dev/v1alpha1', kind: 'Metric', metadata: { name: 'late' }, spec: { mock: [{ name: 'v1', level: 1 }] } };
  const custom = cluster.config().makeApiClient(CustomObjectsApi);
  await until(() => {
    if (!events.length) void custom.createNamespacedCustomObject({ group: 'exp.dev', version: 'v1alpha1', plural: 'metrics', namespace: 'shop', body: { ...body, metadata: { generateName: 'late-' } } }).catch(() => {});
    return events.length > 0;
  }, 'an event once the CRD is served');
  t.equal(events[0].type, 'dev.knative.apiserver.resource.add');
});

t.test('PingSource: dev.knative.sources.ping with the configured data, on the schedule or every N seconds', async (t) => {
  const [manifest] = readEventingManifests().pingSources;
  const event = pingEvent(manifest, new Date('2026-01-01T00:00:00Z'));
  const { id, ...attributes } = JSON.parse(JSON.stringify(event));
  t.match(id, UUID);
  t.same(attributes, {
    type: 'dev.knative.sources.ping',
    source: '/apis/v1/namespaces/exp-system/pingsources/exp-tick',
    specversion: '1.0',
    time: '2026-01-01T00:00:00.000Z',
    datacontenttype: 'application/json',
    data: { reason: 'tick' },
  });
  const fired: Event[] = [];
  const everySecond = startPingSource({ ...manifest, schedule: '* * * * * *' }, (ping) => fired.push(ping));
  await until(() => fired.length >= 2, 'two pings from a six-field schedule');
  everySecond.stop();
  const overridden: Event[] = [];
  const override = startPingSource(manifest, (ping) => overridden.push(ping), 0.2);
  await until(() => overridden.length >= 2, 'two pings from --ping-seconds');
  override.stop();
  t.ok(fired.every((ping) => ping.type === 'dev.knative.sources.ping'));
});

t.test('manifests: backoff durations are ISO-8601', async (t) => {
  t.same(['PT0.2S', 'PT1M', 'PT1H30M', 'P1D', 'PT0S'].map(isoDurationMs), [200, 60_000, 5_400_000, 86_400_000, 0]);
  t.throws(() => isoDurationMs('0.2s'));
});

const UPSTREAM = new URL('../../shared/upstream-crds/', import.meta.url);
const UPSTREAM_FILES: Record<string, string> = {
  'eventing.knative.dev/Broker': 'knative-eventing-brokers.eventing.knative.dev.yaml',
  'eventing.knative.dev/Trigger': 'knative-eventing-triggers.eventing.knative.dev.yaml',
  'sources.knative.dev/ApiServerSource': 'knative-eventing-apiserversources.sources.knative.dev.yaml',
  'sources.knative.dev/PingSource': 'knative-eventing-pingsources.sources.knative.dev.yaml',
  'serving.knative.dev/Service': 'knative-serving-services.serving.knative.dev.yaml',
};

t.test('manifests: every Knative object in knative/ is valid under the upstream CRD', async (t) => {
  const objects = ['eventing.yaml', 'functions.yaml'].flatMap((file) =>
    parseAllDocuments(readFileSync(new URL(`../knative/${file}`, import.meta.url), 'utf8')).map((document) => document.toJS()),
  );
  let checked = 0;
  for (const object of objects) {
    const file = UPSTREAM_FILES[`${object.apiVersion.split('/')[0]}/${object.kind}`];
    if (!file) continue; // SinkBinding: its CRD is not among the upstream ones
    const crd = parse(readFileSync(new URL(file, UPSTREAM), 'utf8')) as CustomResourceDefinition;
    const result = schemaValidator(storageSchema(crd, object.apiVersion.split('/')[1]))(object);
    t.same(result.errors.map(formatFieldError), [], `${object.kind} ${object.metadata.name}`);
    t.same(result.unknownFields, [], `${object.kind} ${object.metadata.name}: no unknown fields`);
    checked++;
  }
  t.equal(checked, 12, 'a Broker, an ApiServerSource, a PingSource, five Triggers and four Services');
});

t.test('manifests: the local event plane reads knative/', async (t) => {
  const manifests = readEventingManifests();
  t.same(manifests.broker, { name: 'default', delivery: { retry: 10, backoffPolicy: 'exponential', backoffDelay: 200 } });
  t.same(manifests.functions.map((fn) => fn.name).sort(), ['iteration-tick', 'on-experiment-apply', 'on-metric-apply', 'promote']);
  t.same(manifests.functions.find((fn) => fn.name === 'promote')?.command, ['node', 'functions/promote/index.ts']);
  t.same(manifests.triggers.find((trigger) => trigger.name === 'on-metric-apply')?.filter, { kind: 'Metric' });
});
