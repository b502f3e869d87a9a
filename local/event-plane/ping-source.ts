// A local Knative PingSource: `dev.knative.sources.ping` events with the configured data, on the
// cron schedule (five fields, or six with seconds), or every N seconds when overridden for demos
// and tests.
import { randomUUID } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import { Cron } from 'croner';
import type { Event } from '../../shared/events/cloudevent-http.ts';
import { PING_EVENT_TYPE } from '../../shared/events/event-types.ts';
import type { PingSource } from './manifests.ts';

export function pingEvent(source: PingSource, time: Date): Event {
  const contentType = source.contentType ?? 'text/plain';
  const base = {
    id: randomUUID(),
    type: PING_EVENT_TYPE,
    source: `/apis/v1/namespaces/${source.namespace}/pingsources/${source.name}`,
    time: time.toISOString(),
    datacontenttype: contentType,
  };
  if (source.dataBase64 !== undefined) return new CloudEvent<unknown>({ ...base, data_base64: source.dataBase64 });
  const data = source.data !== undefined && contentType.startsWith('application/json') ? JSON.parse(source.data) : source.data;
  return new CloudEvent<unknown>({ ...base, data });
}

export function startPingSource(source: PingSource, sink: (event: Event) => void, everySeconds?: number): { stop: () => void } {
  if (everySeconds) {
    const timer = setInterval(() => sink(pingEvent(source, new Date())), everySeconds * 1000);
    return { stop: () => clearInterval(timer) };
  }
  const job = new Cron(source.schedule, () => sink(pingEvent(source, new Date())));
  return { stop: () => job.stop() };
}
