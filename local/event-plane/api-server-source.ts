// A local Knative ApiServerSource in Resource mode: one CloudEvent per watch notification of the
// resources it watches, with the object as data. Like the real one it starts from the current
// state (no events for objects that existed before), and sends an update for every write,
// status writes included.
import { randomUUID } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, Watch } from '@kubernetes/client-node';
import { CloudEvent } from 'cloudevents';
import type { Logger } from 'pino';
import type { Event } from '../../shared/events/cloudevent-http.ts';
import { RESOURCE_EVENT_TYPES } from '../../shared/events/event-types.ts';
import { pluralLookup } from '../../shared/kube/discovery.ts';
import type { ApiServerSource as SourceManifest } from './manifests.ts';

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

const WATCH_TYPES: Record<string, keyof typeof RESOURCE_EVENT_TYPES> = { ADDED: 'add', MODIFIED: 'update', DELETED: 'delete' };
const RETRY_MS = 1000;

/** The event Knative's adapter makes for a watch notification (its subject is a self link with the plural Knative guesses). */
export function resourceEvent(sourceUrl: string, watchType: string, object: KubeObject): Event | undefined {
  const action = WATCH_TYPES[watchType];
  if (!action) return undefined;
  const { name, namespace = '' } = object.metadata;
  return new CloudEvent<unknown>({
    id: randomUUID(),
    type: RESOURCE_EVENT_TYPES[action],
    source: sourceUrl,
    subject: `/apis/${object.apiVersion}/namespaces/${namespace}/${object.kind.toLowerCase()}s/${name}`,
    datacontenttype: 'application/json',
    data: object,
    kind: object.kind,
    apiversion: object.apiVersion,
    name,
    namespace,
  });
}

export class LocalApiServerSource {
  private readonly manifest: SourceManifest;
  private readonly kube: KubeConfig;
  private readonly sink: (event: Event) => void;
  private readonly log: Logger;
  private readonly sourceUrl: string;
  private readonly plural: ReturnType<typeof pluralLookup>;
  private readonly aborts = new Set<{ abort: () => void }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(options: { manifest: SourceManifest; kube: KubeConfig; sink: (event: Event) => void; log: Logger }) {
    this.manifest = options.manifest;
    this.kube = options.kube;
    this.sink = options.sink;
    this.log = options.log.child({ source: options.manifest.name });
    this.sourceUrl = options.kube.getCurrentCluster()!.server;
    this.plural = pluralLookup(options.kube);
  }

  /** Starts watching every resource; resolves once each watch is established or waiting for its CRD. */
  async start(): Promise<void> {
    await Promise.all(this.manifest.resources.map((resource) => this.watchResource(resource)));
  }

  stop(): void {
    this.stopped = true;
    for (const request of this.aborts) request.abort();
    for (const timer of this.timers) clearTimeout(timer);
  }

  private later(action: () => void): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, RETRY_MS);
    this.timers.add(timer);
  }

  /** The collection to watch, from discovery; undefined while its CRD is not served. */
  private async collection(apiVersion: string, kind: string): Promise<{ group: string; version: string; plural: string; path: string } | undefined> {
    const plural = await this.plural(apiVersion, kind);
    if (!plural) return undefined;
    const [group, version] = apiVersion.split('/');
    const scoped = this.manifest.namespaceSelector === undefined ? `/namespaces/${this.manifest.namespace}` : '';
    return { group, version, plural, path: `/apis/${apiVersion}${scoped}/${plural}` };
  }

  private async watchResource(resource: { apiVersion: string; kind: string }): Promise<void> {
    const collection = await this.collection(resource.apiVersion, resource.kind);
    const start = collection && (await this.currentVersion(collection));
    if (!collection || start === undefined) {
      this.log.debug({ kind: resource.kind }, 'resource not served yet; waiting');
      this.later(() => void this.watchResource(resource));
      return;
    }
    await this.watchFrom(resource, collection.path, start);
  }

  /** The resourceVersion to watch from: now. Existing objects send no events, as with Knative. */
  private async currentVersion(collection: { group: string; version: string; plural: string }): Promise<string | undefined> {
    const api = this.kube.makeApiClient(CustomObjectsApi);
    const list = await (this.manifest.namespaceSelector === undefined
      ? api.listNamespacedCustomObject({ ...collection, namespace: this.manifest.namespace, limit: 1 })
      : api.listClusterCustomObject({ ...collection, limit: 1 })
    ).catch(() => undefined);
    return (list as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
  }

  private async watchFrom(resource: { apiVersion: string; kind: string }, path: string, resourceVersion: string): Promise<void> {
    if (this.stopped) return;
    let last = resourceVersion;
    let expired = false;
    const namespaces = await this.selectedNamespaces();
    const request = await new Watch(this.kube).watch(
      path,
      { resourceVersion, allowWatchBookmarks: true },
      (type: string, object: KubeObject & { code?: number }) => {
        if (type === 'ERROR') {
          expired = object.code === 410;
          return;
        }
        if (object.metadata?.resourceVersion) last = object.metadata.resourceVersion;
        if (namespaces && !namespaces.has(object.metadata.namespace ?? '')) return;
        const event = resourceEvent(this.sourceUrl, type, object);
        if (event) this.sink(event);
      },
      (error) => {
        this.aborts.delete(request);
        if (this.stopped) return;
        if (error) this.log.debug({ err: error, kind: resource.kind }, 'watch ended; resuming');
        // After 410 Expired the informer lists again: what happened in between sends no events.
        this.later(() => void (expired ? this.watchResource(resource) : this.watchFrom(resource, path, last)));
      },
    );
    this.aborts.add(request);
  }

  /** With matchLabels, the namespaces whose labels match; undefined when every namespace counts. */
  private async selectedNamespaces(): Promise<Set<string> | undefined> {
    const labels = this.manifest.namespaceSelector?.matchLabels;
    if (!labels || !Object.keys(labels).length) return undefined;
    const selector = Object.entries(labels).map(([key, value]) => `${key}=${value}`).join(',');
    const list = await this.kube.makeApiClient(CoreV1Api).listNamespace({ labelSelector: selector });
    return new Set(list.items.map((namespace) => namespace.metadata!.name!));
  }
}
