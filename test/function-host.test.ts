// The HTTP service the functions run in, and how the local broker delivers to it.
import { spawn } from 'node:child_process';
import { CloudEvent, HTTP } from 'cloudevents';
import t from 'tap';
import { pino } from 'pino';
import { binaryMessage, type Event } from '../shared/events/cloudevent-http.ts';
import { startFunctionHost, type Handler } from '../shared/events/function-host.ts';
import { createLogger } from '../shared/events/logger.ts';
import { backoffMs, Broker, shouldRetry, type DeliveryRecord } from '../local/event-plane/broker.ts';
import { freePort, until } from './support/processes.ts';

const quiet = pino({ level: 'silent' });
const event = (type = 'dev.example.test', data: unknown = { n: 1 }) => new CloudEvent<unknown>({ type, source: '/tests', data });

async function host(handler: Handler) {
  const started = await startFunctionHost({ name: 'test', handler, log: quiet });
  t.teardown(started.close);
  return started;
}

async function post(url: string, headers: Record<string, string>, body: string) {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

t.test('host: binary and structured CloudEvents are accepted; nothing to emit is 202 with an empty body', async (t) => {
  const received: Event[] = [];
  const { url } = await host(async (incoming) => {
    received.push(incoming);
    return undefined;
  });
  const sent = event();
  const binary = binaryMessage(sent);
  t.same(await post(url, binary.headers, binary.body).then(({ status, body }) => ({ status, body })), { status: 202, body: '' });
  const structured = HTTP.structured(sent);
  t.same(await post(url, structured.headers as Record<string, string>, structured.body as string).then(({ status, body }) => ({ status, body })), { status: 202, body: '' });
  const structuredText = JSON.stringify({ specversion: '1.0', id: 'x-1', source: '/tests', type: 'dev.example.test', data: { n: 2 } });
  t.equal((await post(url, { 'content-type': 'application/cloudevents+json' }, structuredText)).status, 202);
  t.same(received.map((incoming) => [incoming.id, incoming.type, incoming.data]), [
    [sent.id, 'dev.example.test', { n: 1 }],
    [sent.id, 'dev.example.test', { n: 1 }],
    ['x-1', 'dev.example.test', { n: 2 }],
  ]);
});

t.test('host: an event to emit is answered 200 with that CloudEvent', async (t) => {
  const { url } = await host(async (incoming) => new CloudEvent<unknown>({ type: 'dev.example.reply', source: '/tests/reply', subject: incoming.id, data: { ok: true } }));
  const sent = binaryMessage(event());
  const answer = await post(url, sent.headers, sent.body);
  t.equal(answer.status, 200);
  t.match(answer.headers, { 'ce-type': 'dev.example.reply', 'ce-source': '/tests/reply', 'ce-specversion': '1.0', 'ce-id': /./ });
  t.same(JSON.parse(answer.body), { ok: true });
});

t.test('host: what is not a valid CloudEvent gets 400 with a reason', async (t) => {
  const { url } = await host(async () => undefined);
  const cases: [Record<string, string>, string, RegExp][] = [
    [{}, '', /no CloudEvent/],
    [{ 'content-type': 'application/json' }, '{"hello":"world"}', /no CloudEvent/],
    [{ 'content-type': 'application/cloudevents+json' }, '{not json', /not valid JSON/],
    [{ 'content-type': 'application/cloudevents+json' }, '{"specversion":"1.0","id":"1","type":"t"}', /lacks required attributes: source/],
    [{ 'ce-specversion': '1.0', 'ce-id': '1', 'ce-type': 't' }, '', /lacks required attributes: source/],
    [{ 'ce-specversion': '0.1', 'ce-id': '1', 'ce-type': 't', 'ce-source': '/s' }, '', /specversion 0.1 is not supported/],
    [{ 'content-type': 'application/cloudevents-batch+json' }, '[]', /batched/],
  ];
  for (const [headers, body, reason] of cases) {
    const answer = await post(url, headers, body);
    t.equal(answer.status, 400, JSON.stringify(headers));
    t.match(JSON.parse(answer.body).error, reason);
  }
});

t.test('host: events a function sends itself go to K_SINK', async (t) => {
  const received: Event[] = [];
  const sink = await startFunctionHost({ name: 'sink', handler: async (incoming) => void received.push(incoming), log: quiet });
  t.teardown(sink.close);
  const emitting = await startFunctionHost({
    name: 'emitting',
    handler: async (incoming, context) => {
      await context.emit(new CloudEvent<unknown>({ type: 'dev.example.emitted', source: '/tests/emitting', subject: incoming.id, data: { from: 'handler' } }));
      return undefined;
    },
    log: quiet,
    sink: sink.url,
  });
  t.teardown(emitting.close);
  const original = event();
  const sent = binaryMessage(original);
  t.equal((await post(emitting.url, sent.headers, sent.body)).status, 202);
  t.same(received.map((incoming) => [incoming.type, incoming.subject, incoming.data]), [['dev.example.emitted', original.id, { from: 'handler' }]]);
  const unset = await startFunctionHost({ name: 'no-sink', handler: async (_incoming, context) => context.emit(event()).then(() => undefined), log: quiet });
  t.teardown(unset.close);
  t.equal((await post(unset.url, sent.headers, sent.body)).status, 500, 'without K_SINK, emitting fails the function (and Knative retries)');
});

t.test('host: a failing function gets 500, and health probes answer', async (t) => {
  const { url } = await host(async () => {
    throw new Error('boom');
  });
  const sent = binaryMessage(event());
  t.equal((await post(url, sent.headers, sent.body)).status, 500);
  t.equal((await fetch(`${url}/health/readiness`)).status, 200);
  t.equal((await fetch(`${url}/health/liveness`)).status, 200);
});

t.test('broker: Knative retry rules', async (t) => {
  for (const status of [404, 408, 409, 429, 500, 502, 503]) t.equal(shouldRetry({ kind: 'answered', status }), true, `retries ${status}`);
  for (const status of [400, 401, 403, 410, 413, 422]) t.equal(shouldRetry({ kind: 'answered', status }), false, `does not retry ${status}`);
  t.equal(shouldRetry({ kind: 'no-answer', reason: 'ECONNREFUSED' }), true);
  const exponential = { retry: 10, backoffPolicy: 'exponential' as const, backoffDelay: 200 };
  t.same([1, 2, 3, 10].map((retry) => backoffMs(exponential, retry)), [200, 400, 800, 102400]);
  t.same([1, 2, 3].map((retry) => backoffMs({ ...exponential, backoffPolicy: 'linear' }, retry)), [200, 400, 600]);
});

async function brokerFor(handlers: Record<string, Handler>, filters: Record<string, Record<string, string>>) {
  const urls = new Map<string, string>();
  for (const [name, handler] of Object.entries(handlers)) urls.set(name, (await host(handler)).url);
  const records: DeliveryRecord[] = [];
  const broker = await Broker.start({
    namespace: 'exp-system',
    name: 'default',
    delivery: { retry: 10, backoffPolicy: 'exponential', backoffDelay: 10 },
    triggers: Object.entries(filters).map(([name, filter]) => ({ name, broker: 'default', filter, subscriber: name })),
    subscriberUrl: (name) => urls.get(name),
    log: quiet,
    onDelivery: (record) => records.push(record),
  });
  t.teardown(() => broker.close());
  return { broker, records };
}

t.test('broker: a function that fails with 500 is retried until it succeeds; a 400 is not retried', async (t) => {
  let calls = 0;
  const { broker, records } = await brokerFor(
    {
      flaky: async () => {
        if (++calls < 3) throw new Error('not yet');
        return undefined;
      },
      picky: async () => undefined,
    },
    { flaky: { type: 'dev.example.flaky' }, picky: { type: 'dev.example.picky' } },
  );
  broker.publish(event('dev.example.flaky'));
  await until(() => records.some((record) => record.trigger === 'flaky' && record.outcome === 'HTTP 202'), 'the third attempt');
  t.same(
    records.filter((record) => record.trigger === 'flaky').map(({ attempt, outcome, retrying }) => ({ attempt, outcome, retrying })),
    [
      { attempt: 0, outcome: 'HTTP 500', retrying: true },
      { attempt: 1, outcome: 'HTTP 500', retrying: true },
      { attempt: 2, outcome: 'HTTP 202', retrying: false },
    ],
  );
  // An invalid event reaches no function through the broker's ingress: it answers 400 itself.
  const ingress = await post(broker.url, { 'content-type': 'application/cloudevents+json' }, '{"specversion":"1.0"}');
  t.equal(ingress.status, 400);
  t.equal(records.filter((record) => record.trigger === 'picky').length, 0);
});

t.test('broker: exact-match filters, and a reply re-enters the broker', async (t) => {
  const seen: string[] = [];
  const { broker, records } = await brokerFor(
    {
      first: async (incoming) => {
        seen.push(`first ${incoming.type}`);
        return new CloudEvent<unknown>({ type: 'dev.example.second', source: '/tests/first', data: {} });
      },
      second: async (incoming) => {
        seen.push(`second ${incoming.type} from ${incoming.source}`);
        return undefined;
      },
    },
    { first: { type: 'dev.example.first', kind: 'Metric' }, second: { type: 'dev.example.second' } },
  );
  broker.publish(new CloudEvent<unknown>({ type: 'dev.example.first', source: '/tests', kind: 'Experiment', data: {} }));
  broker.publish(new CloudEvent<unknown>({ type: 'dev.example.first', source: '/tests', kind: 'Metric', data: {} }));
  await until(() => seen.length === 2, 'both deliveries');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.same(seen, ['first dev.example.first', 'second dev.example.second from /tests/first']);
  t.equal(records.length, 2, 'the event of kind Experiment matched no trigger');
});

t.test('broker: a subscriber that does not answer is retried, with exponential backoff, up to the retry count', async (t) => {
  const port = await freePort();
  const records: DeliveryRecord[] = [];
  const broker = await Broker.start({
    namespace: 'exp-system',
    name: 'default',
    delivery: { retry: 3, backoffPolicy: 'exponential', backoffDelay: 5 },
    triggers: [{ name: 'gone', broker: 'default', filter: {}, subscriber: 'gone' }],
    subscriberUrl: () => `http://127.0.0.1:${port}`,
    log: quiet,
    onDelivery: (record) => records.push(record),
  });
  t.teardown(() => broker.close());
  broker.publish(event());
  await until(() => records.length === 4, 'four attempts');
  t.same(records.map((record) => [record.attempt, record.outcome, record.retrying]), [
    [0, 'ECONNREFUSED', true],
    [1, 'ECONNREFUSED', true],
    [2, 'ECONNREFUSED', true],
    [3, 'ECONNREFUSED', false],
  ]);
});

t.test('a function starts alone from its entry point, and stops gracefully on SIGTERM', async (t) => {
  const port = await freePort();
  const child = spawn(process.execPath, [new URL('../functions/promote/index.ts', import.meta.url).pathname], { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'pipe' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let ready = false;
  for (let i = 0; i < 300 && !ready; i++) {
    ready = (await fetch(`http://127.0.0.1:${port}/health/readiness`).catch(() => undefined))?.ok ?? false;
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.ok(ready, 'it answers its readiness probe on PORT');
  const sent = binaryMessage(event('dev.example.unrouted'));
  t.equal((await post(`http://127.0.0.1:${port}`, sent.headers, sent.body)).status, 202, 'an event it does not handle is acknowledged');
  const unusable = binaryMessage(event('dev.exp.experiment.completed', {}));
  t.equal((await post(`http://127.0.0.1:${port}`, unusable.headers, unusable.body)).status, 400, 'an event without the data its type promises is refused');
  child.kill('SIGTERM');
  t.equal(await exited, 0);
});

t.test('logs: fields that could carry credentials are redacted', async (t) => {
  const lines: string[] = [];
  const log = createLogger('test', 'info', { write: (line: string) => void lines.push(line) });
  log.info({ headers: { authorization: 'Bearer abc' }, secret: { password: 'pw-1', token: 't0k', apikey: 'k3y' }, token: 'top' }, 'x');
  const [line] = lines.map((text) => JSON.parse(text));
  t.same([line.headers.authorization, line.secret.password, line.secret.token, line.secret.apikey, line.token], ['****', '****', '****', '****', '****']);
});
