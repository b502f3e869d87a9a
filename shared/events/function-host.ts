// The HTTP service every function runs in: it receives CloudEvents (binary or structured mode),
// answers 202 with an empty body or 200 with the CloudEvent the function means to emit, 400 for
// what is not a valid CloudEvent (Knative does not retry 4xx) and 500 when the function fails
// (Knative retries it).
import Fastify, { LogController } from 'fastify';
import type { Logger } from 'pino';
import { binaryMessage, InvalidEvent, postEvent, toCloudEvent, type Event } from './cloudevent-http.ts';

export interface HandlerContext {
  log: Logger;
  /** Sends an event of the function's own to K_SINK (the broker); throws when it is not accepted. */
  emit: (event: Event) => Promise<void>;
}

const EMIT_TIMEOUT_MS = 10_000;

/** Posts to the sink Knative injects as K_SINK; without one, emitting is an error. */
export function sinkEmitter(sink: string | undefined): HandlerContext['emit'] {
  return async (event) => {
    if (!sink) throw new Error(`cannot emit ${event.type}: K_SINK is not set`);
    const delivery = await postEvent(sink, event, EMIT_TIMEOUT_MS);
    if (delivery.kind === 'no-answer') throw new Error(`cannot emit ${event.type} to ${sink}: ${delivery.reason}`);
    if (delivery.status < 200 || delivery.status >= 300) throw new Error(`cannot emit ${event.type} to ${sink}: HTTP ${delivery.status}`);
  };
}

/** An event the function cannot use (its data lacks what the type promises): 400, not retried. */
export class UnusableEvent extends Error {}

/** A function: given an event, what it emits (or nothing). Failures throw. */
export type Handler = (event: Event, context: HandlerContext) => Promise<Event | undefined>;

export interface FunctionHost {
  url: string;
  close: () => Promise<void>;
}

export async function startFunctionHost(options: { name: string; handler: Handler; log: Logger; port?: number; host?: string; sink?: string }): Promise<FunctionHost> {
  const { handler, log } = options;
  const emit = sinkEmitter(options.sink);
  // One log line per event (below) says more than fastify's per-request lines.
  const logController = new LogController({ disableRequestLogging: true });
  const app = Fastify({ loggerInstance: log, logController, bodyLimit: 16 * 1024 * 1024, forceCloseConnections: 'idle' });
  // The CloudEvents SDK reads the raw body: no parsing by content type here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.get('/health/readiness', async () => ({ status: 'ok' }));
  app.get('/health/liveness', async () => ({ status: 'ok' }));

  app.post('/', async (request, reply) => {
    let event: Event;
    try {
      event = toCloudEvent(request.headers, typeof request.body === 'string' ? request.body : '');
    } catch (error) {
      if (!(error instanceof InvalidEvent)) throw error;
      log.warn({ reason: error.message }, 'refused a request that is not a valid CloudEvent');
      return reply.code(400).send({ error: error.message });
    }
    const eventLog = log.child({ eventId: event.id, eventType: event.type, subject: event.subject });
    try {
      const emitted = await handler(event, { log: eventLog, emit });
      if (!emitted) return reply.code(202).send();
      const { headers, body } = binaryMessage(emitted);
      eventLog.debug({ emitted: emitted.type }, 'replied with an event');
      return reply.code(200).headers(headers).send(body);
    } catch (error) {
      if (error instanceof UnusableEvent) {
        eventLog.warn({ reason: error.message }, 'refused an event it cannot use');
        return reply.code(400).send({ error: error.message });
      }
      eventLog.error({ err: error }, 'the function failed; the event will be retried');
      return reply.code(500).send({ error: 'the function failed; see its log' });
    }
  });

  await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  log.info({ port }, `${options.name} listening`);
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/**
 * A function's entry point, the same locally and in its container: listens on PORT and stops
 * gracefully on SIGTERM (requests in flight finish first).
 */
export async function runFunction(name: string, log: Logger, setUp: () => Promise<{ handler: Handler; close?: () => Promise<void> }>): Promise<void> {
  const { handler, close } = await setUp();
  const host = await startFunctionHost({ name, handler, log, port: Number(process.env.PORT ?? 8080), host: process.env.HOST ?? '0.0.0.0', sink: process.env.K_SINK });
  const stop = async () => {
    log.info(`${name} stopping`);
    await host.close();
    await close?.();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  // Started by `exp local up` with an IPC channel: stop when it goes away, even if it was killed.
  if (process.connected) process.once('disconnect', stop);
}
