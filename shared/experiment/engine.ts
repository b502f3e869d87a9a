// What the experiment functions need from the world: the API (experiments, metrics, routing
// objects, Events), metric queries, the event sink and the clock. Handlers get it as one value.
import { CloudEvent } from 'cloudevents';
import type { Logger } from 'pino';
import type { Event } from '../events/cloudevent-http.ts';
import type { CustomResources } from '../kube/custom-resources.ts';
import type { EventRecorder } from '../kube/events.ts';
import type { Experiment, Metric } from '../kube/resources.ts';
import type { MetricFetch, MetricQuery } from '../metrics/fetch-metric.ts';
import type { CompileJq } from '../metrics/validate-metric.ts';
import type { Routing } from '../traffic/routing.ts';

export interface EngineDeps {
  experiments: CustomResources<Experiment>;
  metrics: CustomResources<Metric>;
  routing: Routing;
  recordEvent: EventRecorder;
  fetchMetric: (query: MetricQuery) => Promise<MetricFetch>;
  compileJq: CompileJq;
  /** Sends an event to the broker (K_SINK). */
  emit: (event: Event) => Promise<void>;
  /** Runs a metric query within the bound on queries in flight, shared by all experiments. */
  limitQueries: <T>(query: () => Promise<T>) => Promise<T>;
  now: () => Date;
  log: Logger;
  /** The function's name, as the source of the events it sends. */
  component: string;
}

export interface ExperimentRef {
  namespace: string;
  name: string;
}

export function refOf(experiment: Experiment): ExperimentRef {
  return { namespace: experiment.metadata.namespace!, name: experiment.metadata.name! };
}

/** An event about an experiment, for the broker. */
export function experimentEvent(deps: EngineDeps, type: string, ref: ExperimentRef, data: Record<string, unknown>): Event {
  return new CloudEvent<unknown>({ type, source: `exp.dev/${deps.component}`, subject: `${ref.namespace}/${ref.name}`, datacontenttype: 'application/json', data: { ...ref, ...data } });
}

/** Emits an event; a failure is logged and left to the tick's repairs. */
export async function emitQuietly(deps: EngineDeps, event: Event): Promise<boolean> {
  try {
    await deps.emit(event);
    return true;
  } catch (error) {
    deps.log.warn({ err: error, type: event.type, subject: event.subject }, 'could not emit an event');
    return false;
  }
}
