// CloudEvents over HTTP (binary and structured mode), with the strictness the SDK lacks: its
// parser makes up a missing id and accepts a missing source, which a receiver must refuse.
import fetch from 'cross-fetch';
import { CloudEvent, HTTP } from 'cloudevents';

export type Event = CloudEvent<unknown>;

/** A request that is not a valid CloudEvent; the reason says what is wrong. */
export class InvalidEvent extends Error {}

const REQUIRED = ['id', 'source', 'type', 'specversion'] as const;
const STRUCTURED = 'application/cloudevents+json';
const BATCH = 'application/cloudevents-batch+json';

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The CloudEvent in an HTTP request or reply, in binary or structured mode. */
export function toCloudEvent(headers: Headers, body: string): Event {
  const contentType = header(headers, 'content-type') ?? '';
  let attributes: Record<string, unknown>;
  if (contentType.startsWith(BATCH)) throw new InvalidEvent('batched CloudEvents are not supported');
  if (contentType.startsWith(STRUCTURED)) {
    try {
      attributes = JSON.parse(body);
    } catch (error) {
      throw new InvalidEvent(`structured CloudEvent is not valid JSON: ${(error as Error).message}`);
    }
    if (!attributes || typeof attributes !== 'object' || Array.isArray(attributes)) throw new InvalidEvent('structured CloudEvent is not a JSON object');
  } else {
    attributes = Object.fromEntries(REQUIRED.map((name) => [name, header(headers, `ce-${name}`)]));
    if (REQUIRED.every((name) => attributes[name] === undefined)) throw new InvalidEvent('no CloudEvent: the request has neither ce- headers nor a structured body');
  }
  const missing = REQUIRED.filter((name) => typeof attributes[name] !== 'string' || attributes[name] === '');
  if (missing.length) throw new InvalidEvent(`CloudEvent lacks required attributes: ${missing.join(', ')}`);
  if (attributes.specversion !== '1.0') throw new InvalidEvent(`CloudEvent specversion ${attributes.specversion} is not supported; use 1.0`);
  let event: Event;
  try {
    event = HTTP.toEvent({ headers, body }) as Event;
    event.validate();
  } catch (error) {
    throw new InvalidEvent(`invalid CloudEvent: ${(error as Error).message.split('\n')[0]}`);
  }
  return event;
}

/** The headers and body of `event` in binary mode (how Knative delivers events). */
export function binaryMessage(event: Event): { headers: Record<string, string>; body: string } {
  const message = HTTP.binary(event);
  return { headers: message.headers as Record<string, string>, body: typeof message.body === 'string' ? message.body : JSON.stringify(message.body ?? '') };
}

export type Delivery =
  | { kind: 'answered'; status: number; reply?: Event }
  | { kind: 'no-answer'; reason: string };

/** POSTs `event` in binary mode and reads the answer, with any CloudEvent it carries. */
export async function postEvent(url: string, event: Event, timeoutMs: number): Promise<Delivery> {
  const { headers, body } = binaryMessage(event);
  try {
    const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    const replyHeaders = Object.fromEntries(response.headers.entries());
    let reply: Event | undefined;
    if (response.status === 200 && (header(replyHeaders, 'ce-id') || header(replyHeaders, 'content-type')?.startsWith(STRUCTURED))) {
      reply = toCloudEvent(replyHeaders, text);
    }
    return { kind: 'answered', status: response.status, reply };
  } catch (error) {
    const { name, code } = error as { name?: string; code?: string };
    return { kind: 'no-answer', reason: name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${timeoutMs} ms` : (code ?? (error as Error).message) };
  }
}
