// The CloudEvents the system sends and receives (DESIGN section 5).
import type { Event } from './cloudevent-http.ts';

export const RESOURCE_EVENT_TYPES = {
  add: 'dev.knative.apiserver.resource.add',
  update: 'dev.knative.apiserver.resource.update',
  delete: 'dev.knative.apiserver.resource.delete',
} as const;

export const PING_EVENT_TYPE = 'dev.knative.sources.ping';

export const EXPERIMENT_EVENT_TYPES = {
  iterationDue: 'dev.exp.experiment.iteration.due',
  iteration: 'dev.exp.experiment.iteration',
  completed: 'dev.exp.experiment.completed',
  promoted: 'dev.exp.experiment.promoted',
  failed: 'dev.exp.experiment.failed',
} as const;

export type ResourceAction = keyof typeof RESOURCE_EVENT_TYPES;

export interface ResourceChange {
  action: ResourceAction;
  kind: string;
  namespace: string;
  name: string;
  /** The object as the source saw it; handlers re-read the current one. */
  object: unknown;
}

/** What an ApiServerSource event says changed, or undefined for any other event. */
export function resourceChange(event: Event): ResourceChange | undefined {
  const action = (Object.keys(RESOURCE_EVENT_TYPES) as ResourceAction[]).find((key) => RESOURCE_EVENT_TYPES[key] === event.type);
  if (!action) return undefined;
  const object = event.data as { kind?: string; metadata?: { name?: string; namespace?: string } } | undefined;
  const kind = String(event.kind ?? object?.kind ?? '');
  const name = String(event.name ?? object?.metadata?.name ?? '');
  const namespace = String(event.namespace ?? object?.metadata?.namespace ?? '');
  return { action, kind, name, namespace, object };
}
