// A local Knative Broker: an ingress that accepts CloudEvents, and per Trigger whose filter
// attributes all match exactly, a delivery to the subscriber with Knative's retry rules. A
// CloudEvent in a subscriber's reply re-enters the broker.
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { InvalidEvent, postEvent, toCloudEvent, type Delivery as Attempt, type Event } from '../../shared/events/cloudevent-http.ts';
import type { Delivery, Trigger } from './manifests.ts';

/** What happened to one delivery attempt, for logs and tests. */
export interface DeliveryRecord {
  trigger: string;
  eventId: string;
  eventType: string;
  attempt: number;
  outcome: string;
  retrying: boolean;
}

export interface BrokerOptions {
  namespace: string;
  name: string;
  delivery: Delivery;
  triggers: Trigger[];
  /** The URL of a Knative Service, once it runs. */
  subscriberUrl: (service: string) => string | undefined;
  log: Logger;
  /** Time allowed for one delivery attempt (default 60 s). */
  attemptTimeoutMs?: number;
  onDelivery?: (record: DeliveryRecord) => void;
}

/** Knative retries on no answer, 5xx, 404, 408, 409 and 429; other answers are final. */
export function shouldRetry(attempt: Attempt): boolean {
  if (attempt.kind === 'no-answer') return true;
  return attempt.status >= 500 || [404, 408, 409, 429].includes(attempt.status);
}

/** The wait before retry `n` (1, 2, …): exponential doubles from backoffDelay, linear adds it. */
export function backoffMs(delivery: Delivery, retry: number): number {
  return delivery.backoffPolicy === 'linear' ? delivery.backoffDelay * retry : delivery.backoffDelay * 2 ** (retry - 1);
}

export function matches(filter: Record<string, string>, event: Event): boolean {
  return Object.entries(filter).every(([attribute, value]) => String((event as unknown as Record<string, unknown>)[attribute] ?? '') === value);
}

export class Broker {
  readonly path: string;
  url = '';
  private readonly options: BrokerOptions;
  private readonly server: Server;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  private constructor(options: BrokerOptions) {
    this.options = options;
    this.path = `/${options.namespace}/${options.name}`;
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== this.path) {
          res.writeHead(404).end();
          return;
        }
        try {
          this.publish(toCloudEvent(req.headers, Buffer.concat(chunks).toString('utf8')));
          res.writeHead(202).end();
        } catch (error) {
          res.writeHead(error instanceof InvalidEvent ? 400 : 500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: (error as Error).message }));
        }
      });
    });
  }

  static async start(options: BrokerOptions): Promise<Broker> {
    const broker = new Broker(options);
    await new Promise<void>((resolve) => broker.server.listen(0, '127.0.0.1', resolve));
    broker.url = `http://127.0.0.1:${(broker.server.address() as { port: number }).port}${broker.path}`;
    return broker;
  }

  /** Routes an event to every Trigger that matches it. */
  publish(event: Event): void {
    if (this.closed) return;
    for (const trigger of this.options.triggers) {
      if (trigger.broker === this.options.name && matches(trigger.filter, event)) void this.deliver(trigger, event, 0);
    }
  }

  private async deliver(trigger: Trigger, event: Event, attempt: number): Promise<void> {
    const { log } = this.options;
    const delivery = trigger.delivery ?? this.options.delivery;
    const url = this.options.subscriberUrl(trigger.subscriber);
    const result: Attempt = url
      ? await postEvent(url, event, this.options.attemptTimeoutMs ?? 60_000)
      : { kind: 'no-answer', reason: `${trigger.subscriber} is not running` };
    if (this.closed) return;
    const retrying = !(result.kind === 'answered' && result.status >= 200 && result.status < 300) && shouldRetry(result) && attempt < delivery.retry;
    const outcome = result.kind === 'answered' ? `HTTP ${result.status}` : result.reason;
    this.options.onDelivery?.({ trigger: trigger.name, eventId: event.id, eventType: event.type, attempt, outcome, retrying });
    if (result.kind === 'answered' && result.status >= 200 && result.status < 300) {
      if (result.reply) this.publish(result.reply);
      return;
    }
    const details = { trigger: trigger.name, eventId: event.id, eventType: event.type, attempt, outcome };
    if (!retrying) {
      log.warn(details, 'event not delivered');
      return;
    }
    log.debug(details, 'event delivery failed; retrying');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.deliver(trigger, event, attempt + 1);
    }, backoffMs(delivery, attempt + 1));
    this.timers.add(timer);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
