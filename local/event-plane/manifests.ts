// The local event plane is configured from the same manifests a cluster gets (knative/): the
// Broker's delivery policy, the Triggers' filters and subscribers, the sources, the functions.
import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

export interface Delivery {
  retry: number;
  backoffPolicy: 'exponential' | 'linear';
  /** Milliseconds. */
  backoffDelay: number;
}

export interface Trigger {
  name: string;
  broker: string;
  filter: Record<string, string>;
  /** The Knative Service it delivers to. */
  subscriber: string;
  delivery?: Delivery;
}

export interface ApiServerSource {
  name: string;
  namespace: string;
  resources: { apiVersion: string; kind: string }[];
  /** Absent: only the source's namespace; an empty selector: every namespace. */
  namespaceSelector?: { matchLabels?: Record<string, string> };
}

export interface PingSource {
  name: string;
  namespace: string;
  schedule: string;
  contentType?: string;
  data?: string;
  dataBase64?: string;
}

export interface FunctionService {
  name: string;
  /** The container's command, such as [node, functions/promote/index.ts]. */
  command: string[];
  env: Record<string, string>;
}

export interface EventingManifests {
  namespace: string;
  broker: { name: string; delivery: Delivery };
  triggers: Trigger[];
  apiServerSources: ApiServerSource[];
  pingSources: PingSource[];
  functions: FunctionService[];
}

export const KNATIVE_DIR = new URL('../../knative/', import.meta.url);

/** ISO-8601 durations as Knative writes backoffDelay ("PT0.2S", "PT1M"), in milliseconds. */
export function isoDurationMs(text: string): number {
  const match = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) throw new Error(`"${text}" is not an ISO-8601 duration such as PT0.2S`);
  const [, days = '0', hours = '0', minutes = '0', seconds = '0'] = match;
  return Math.round((((Number(days) * 24 + Number(hours)) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000);
}

type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: Record<string, any> };

/** Every document of the YAML files in `dir` (or of `files` there), in file-name order. */
export function readManifests<T = Manifest>(dir: URL, files?: string[]): T[] {
  return (files ?? readdirSync(dir).filter((file) => file.endsWith('.yaml')).sort()).flatMap((file) =>
    parseAllDocuments(readFileSync(new URL(file, dir), 'utf8')).map((document) => document.toJS() as T),
  );
}

function delivery(spec: Record<string, any> | undefined): Delivery | undefined {
  if (!spec) return undefined;
  return { retry: spec.retry ?? 0, backoffPolicy: spec.backoffPolicy ?? 'exponential', backoffDelay: spec.backoffDelay ? isoDurationMs(spec.backoffDelay) : 0 };
}

export function readEventingManifests(dir: URL = KNATIVE_DIR): EventingManifests {
  const manifests = readManifests(dir).filter((manifest) => manifest.kind !== 'Kustomization');
  const of = (kind: string) => manifests.filter((manifest) => manifest.kind === kind);
  const [broker] = of('Broker');
  if (!broker) throw new Error(`no Broker in ${dir.pathname}`);
  return {
    namespace: broker.metadata.namespace ?? 'default',
    broker: { name: broker.metadata.name, delivery: delivery(broker.spec?.delivery) ?? { retry: 0, backoffPolicy: 'exponential', backoffDelay: 0 } },
    triggers: of('Trigger').map((trigger) => ({
      name: trigger.metadata.name,
      broker: trigger.spec!.broker,
      filter: trigger.spec!.filter?.attributes ?? {},
      subscriber: trigger.spec!.subscriber.ref.name,
      delivery: delivery(trigger.spec!.delivery),
    })),
    apiServerSources: of('ApiServerSource').map((source) => ({
      name: source.metadata.name,
      namespace: source.metadata.namespace ?? 'default',
      resources: source.spec!.resources,
      namespaceSelector: source.spec!.namespaceSelector,
    })),
    pingSources: of('PingSource').map((source) => ({
      name: source.metadata.name,
      namespace: source.metadata.namespace ?? 'default',
      schedule: source.spec!.schedule,
      contentType: source.spec!.contentType,
      data: source.spec!.data,
      dataBase64: source.spec!.dataBase64,
    })),
    functions: of('Service')
      .filter((service) => service.apiVersion === 'serving.knative.dev/v1')
      .map((service) => {
        const [container] = service.spec!.template.spec.containers;
        return {
          name: service.metadata.name,
          command: [...(container.command ?? []), ...(container.args ?? [])],
          env: Object.fromEntries((container.env ?? []).map((variable: { name: string; value: string }) => [variable.name, variable.value])),
        };
      }),
  };
}
