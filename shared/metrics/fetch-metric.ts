// One query, one value: composes secret, request, HTTP and jq into a MetricResult. Never throws, and
// nothing it returns or logs carries a secret value.
import type { Logger } from 'pino';
import type { MetricSpec } from '../kube/resources.ts';
import { parseQuantity } from '../kube/quantity.ts';
import { buildRequest, secretValuesUsed, type HttpRequestSpec, type QueryContext, type SecretData } from './build-request.ts';
import { extraction, type Extraction } from './extract.ts';
import { formatBytes, sendQuery, type HttpReply } from './http-query.ts';
import type { JqEvaluator } from './jq/jq-pool.ts';
import { secretMasker } from './mask-secrets.ts';
import { formatRef, secretRef, type SecretSource } from './secret-source.ts';
import type { Parsed } from './template.ts';

export type MetricResult =
  | { kind: 'value'; value: number; at: string }
  | { kind: 'unavailable'; reason: string; at: string };

export interface MetricQuery extends QueryContext {
  metric: { namespace: string; name: string; spec: MetricSpec };
  /** Namespace of a bare secret name: the experiment's. */
  namespace: string;
}

export interface ReplyTrace {
  status: number;
  latencyMs: number;
  bytes: number;
  /** The start of the reply, as text. */
  body: string;
}

/** The result, with what was sent and received (secret values masked), for the command line. */
export interface MetricFetch {
  result: MetricResult;
  request?: HttpRequestSpec;
  reply?: ReplyTrace;
}

export interface FetchDeps {
  secrets: SecretSource;
  jq: JqEvaluator;
  log: Logger;
  now?: () => Date;
  maxReplyBytes?: number;
}

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const DEFAULT_MAX_REPLY_BYTES = 5 * 1024 * 1024;
const REASON_BODY_CHARS = 200;
const TRACE_BODY_CHARS = 4000;

type Attempt = Omit<MetricFetch, 'result'> & { outcome: Extraction };

export async function fetchMetric(query: MetricQuery, deps: FetchDeps): Promise<MetricFetch> {
  const { spec } = query.metric;
  const log = deps.log.child({ metric: `${query.metric.namespace}/${query.metric.name}`, version: query.version.name });
  let mask = (text: string) => text;
  let attempt: Attempt;
  try {
    if (spec.mock) {
      attempt = { outcome: mockLevel(spec.mock, query.version.name) };
    } else {
      const secret = await readSecret(spec, query, deps.secrets);
      if (secret.ok) {
        mask = secretMasker(secret.value ? secretValuesUsed(spec, secret.value) : []);
        attempt = await queryProvider(spec, query, secret.value, mask, deps);
      } else {
        attempt = { outcome: secret };
      }
    }
  } catch (error) {
    attempt = { outcome: { ok: false, reason: `internal error: ${(error as Error).message}` } };
  }
  const at = (deps.now ?? (() => new Date()))().toISOString();
  const { outcome, ...trace } = attempt;
  const result: MetricResult = outcome.ok
    ? { kind: 'value', value: outcome.value, at }
    : { kind: 'unavailable', reason: mask(outcome.reason), at };
  const latencyMs = trace.reply?.latencyMs;
  if (result.kind === 'value') log.debug({ value: result.value, latencyMs }, 'metric value');
  else log.info({ reason: result.reason, latencyMs }, 'metric unavailable');
  return { result, ...trace };
}

async function readSecret(spec: MetricSpec, query: MetricQuery, secrets: SecretSource): Promise<Parsed<SecretData | undefined>> {
  if (!spec.secret) {
    return spec.authType ? { ok: false, reason: `authType ${spec.authType} needs spec.secret` } : { ok: true, value: undefined };
  }
  const ref = secretRef(spec.secret, query.namespace);
  const read = await secrets.read(ref);
  return read.kind === 'found' ? { ok: true, value: { ref: formatRef(ref), data: read.data } } : { ok: false, reason: read.reason };
}

async function queryProvider(
  spec: MetricSpec,
  query: MetricQuery,
  secret: SecretData | undefined,
  mask: (text: string) => string,
  deps: FetchDeps,
): Promise<Attempt> {
  if (!spec.jqExpression) return { outcome: { ok: false, reason: 'spec.jqExpression is not set' } };
  const built = buildRequest(spec, query, secret);
  if (!built.ok) return { outcome: built };
  const sent = built.value;
  const request: HttpRequestSpec = {
    ...sent,
    url: mask(sent.url),
    headers: Object.fromEntries(Object.entries(sent.headers).map(([name, value]) => [name, mask(value)])),
  };

  const timeoutSeconds = spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const deadline = Date.now() + timeoutSeconds * 1000;
  const maxReplyBytes = deps.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  const answer = await sendQuery(sent, { deadline, timeoutSeconds, maxReplyBytes });
  if (!answer.ok) return { outcome: answer, request };
  const reply = traceOf(answer.reply, mask);
  if (answer.reply.status >= 400) {
    const snippet = reply.body.replace(/\s+/g, ' ').trim().slice(0, REASON_BODY_CHARS);
    const host = new URL(sent.url).host;
    return { outcome: { ok: false, reason: `HTTP ${answer.reply.status} from ${host}${snippet ? `: ${snippet}` : ''}` }, request, reply };
  }
  const evaluated = await deps.jq.evaluate(spec.jqExpression, answer.reply.body, deadline);
  return { outcome: extraction(evaluated, timeoutSeconds), request, reply };
}

function traceOf(reply: HttpReply, mask: (text: string) => string): ReplyTrace {
  const text = Buffer.from(reply.body.subarray(0, TRACE_BODY_CHARS * 4)).toString('utf8');
  const body = text.length > TRACE_BODY_CHARS ? `${text.slice(0, TRACE_BODY_CHARS)}… (${formatBytes(reply.body.length)} in all)` : text;
  return { status: reply.status, latencyMs: reply.latencyMs, bytes: reply.body.length, body: mask(body) };
}

function mockLevel(mock: NonNullable<MetricSpec['mock']>, version: string): Extraction {
  const entry = mock.find((level) => level.name === version);
  if (!entry) return { ok: false, reason: `mock has no level for version "${version}"` };
  const value = parseQuantity(entry.level);
  if (value === undefined) return { ok: false, reason: `mock level for version "${version}" is not a number or a quantity` };
  return { ok: true, value };
}
