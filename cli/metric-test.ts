// `exp metric test`: runs one Metric's query for one version and shows what was sent and received.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { parseAllDocuments } from 'yaml';
import { formatFieldError } from '../shared/kube/crd-schema.ts';
import { checkMetric } from '../shared/kube/crds.ts';
import { EXP_API_VERSION, type Metric } from '../shared/kube/resources.ts';
import { fetchMetric, type MetricFetch } from '../shared/metrics/fetch-metric.ts';
import { JqPool } from '../shared/metrics/jq/jq-pool.ts';
import type { SecretSource } from '../shared/metrics/secret-source.ts';
import { fileSecretSource } from './file-secret-source.ts';
import { BadInput, type Command } from './command.ts';

export const USAGE = `Usage: exp metric test -f METRIC.yaml [--secret SECRET.yaml] [--version NAME]
                       [--var KEY=VALUE]... [--elapsed-seconds N] [-o json]

Runs the Metric's query for one version and prints the request as sent (secret values
masked), the HTTP status and latency, the reply, and the value or why there is none.

  -f, --filename FILE       the Metric (YAML or JSON)
      --secret FILE         Secret manifests that hold the Metric's credentials
      --version NAME        the version's name, for $name and mock levels (default: baseline)
      --var KEY=VALUE       a version variable, for $KEY (repeatable)
      --elapsed-seconds N   the value of $elapsedTime (default: 60)
  -o, --output FORMAT       json for one JSON object; default: text

Exit status: 0 with a value, 1 when the metric is unavailable, 2 for bad input.`;

const DEFAULT_VERSION = 'baseline';
const DEFAULT_ELAPSED_SECONDS = 60;
const SHOWN_REPLY_CHARS = 1000;

interface Options {
  metric: Metric;
  secrets: SecretSource;
  version: string;
  variables: Record<string, string>;
  elapsedSeconds: number;
  json: boolean;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    options: {
      filename: { type: 'string', short: 'f' },
      secret: { type: 'string' },
      version: { type: 'string', default: DEFAULT_VERSION },
      var: { type: 'string', multiple: true, default: [] },
      'elapsed-seconds': { type: 'string', default: String(DEFAULT_ELAPSED_SECONDS) },
      output: { type: 'string', short: 'o', default: 'text' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.filename) throw new BadInput('-f METRIC.yaml is required');
  if (values.output !== 'text' && values.output !== 'json') throw new BadInput(`-o must be json or text, not "${values.output}"`);
  const elapsedSeconds = Number(values['elapsed-seconds']);
  if (!Number.isInteger(elapsedSeconds) || elapsedSeconds < 0) {
    throw new BadInput(`--elapsed-seconds must be a whole number of seconds, not "${values['elapsed-seconds']}"`);
  }
  const variables: Record<string, string> = {};
  for (const assignment of values.var) {
    const equals = assignment.indexOf('=');
    if (equals < 1) throw new BadInput(`--var must be KEY=VALUE, not "${assignment}"`);
    variables[assignment.slice(0, equals)] = assignment.slice(equals + 1);
  }
  let secrets: SecretSource = {
    read: async (ref) => ({ kind: 'unavailable', reason: `secret ${ref.namespace}/${ref.name}: pass it with --secret FILE` }),
  };
  if (values.secret) {
    try {
      secrets = fileSecretSource(values.secret);
    } catch (error) {
      throw new BadInput((error as Error).message);
    }
  }
  return { metric: readMetric(values.filename), secrets, version: values.version, variables, elapsedSeconds, json: values.output === 'json' };
}

function readMetric(path: string): Metric {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new BadInput(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const documents = parseAllDocuments(text);
  for (const document of documents) {
    if (document.errors.length) throw new BadInput(`${path} is not valid YAML: ${document.errors[0].message}`);
  }
  const metrics = documents.map((document) => document.toJS()).filter((object) => object?.kind === 'Metric');
  if (metrics.length !== 1) {
    throw new BadInput(`${path} must hold exactly one object of kind Metric; it holds ${metrics.length}`);
  }
  const [object] = metrics;
  const name = object.metadata?.name ?? '(unnamed)';
  const problems: string[] = [];
  if (object.apiVersion !== EXP_API_VERSION) problems.push(`apiVersion: Unsupported value: ${JSON.stringify(object.apiVersion)}: supported values: "${EXP_API_VERSION}"`);
  const check = checkMetric(object);
  problems.push(...check.errors.map(formatFieldError), ...check.unknownFields.map((field) => `${field}: unknown field`));
  if (problems.length) throw new BadInput(`Metric "${name}" in ${path} is invalid:\n  ${problems.sort().join('\n  ')}`);
  return check.object;
}

function indent(text: string, by: string): string {
  return text.replace(/\n/g, `\n${by}`);
}

function textReport(metric: Metric, options: Options, fetched: MetricFetch): string {
  const { spec } = metric;
  const pad = ' '.repeat(11);
  const about = [spec.type, spec.provider].filter(Boolean).join(', ');
  const variables = Object.entries(options.variables).map(([key, value]) => `${key}=${value}`);
  const lines = [
    `Metric     ${metric.metadata.namespace ?? 'default'}/${metric.metadata.name}${about ? ` (${about})` : ''}`,
    `Version    ${options.version} (${[...variables, `elapsedTime=${Math.max(1, options.elapsedSeconds)}`].join(', ')})`,
  ];
  if (spec.mock) lines.push('Request    none: the Metric is a mock');
  if (fetched.request) {
    const { method, url, headers, body } = fetched.request;
    lines.push(`Request    ${method} ${url}`, ...Object.entries(headers).map(([name, value]) => `${pad}${name}: ${value}`));
    if (body !== undefined) lines.push(`${pad}${indent(body, pad)}`);
  }
  if (fetched.reply) {
    const { status, latencyMs, bytes, body } = fetched.reply;
    const shown = body.length > SHOWN_REPLY_CHARS ? `${body.slice(0, SHOWN_REPLY_CHARS)}…` : body;
    lines.push(`Reply      HTTP ${status} in ${latencyMs} ms, ${bytes} bytes`, `${pad}${indent(shown, pad)}`);
  }
  const { result } = fetched;
  lines.push(result.kind === 'value' ? `Value      ${result.value}${spec.units ? ` ${spec.units}` : ''}` : `Unavailable  ${result.reason}`);
  return lines.join('\n');
}

function jsonReport(metric: Metric, options: Options, fetched: MetricFetch): string {
  const { result, request, reply } = fetched;
  return JSON.stringify({
    metric: `${metric.metadata.namespace ?? 'default'}/${metric.metadata.name}`,
    version: options.version,
    request,
    reply,
    ...(result.kind === 'value' ? { value: result.value } : { unavailable: result.reason }),
    at: result.at,
  });
}

export const run: Command = async (args, out) => {
  const options = parseOptions(args);
  const jq = new JqPool({ size: 1 });
  try {
    const { metric } = options;
    const fetched = await fetchMetric(
      {
        metric: { namespace: metric.metadata.namespace ?? 'default', name: metric.metadata.name ?? '', spec: metric.spec },
        namespace: metric.metadata.namespace ?? 'default',
        version: { name: options.version, variables: options.variables },
        elapsedSeconds: options.elapsedSeconds,
      },
      { secrets: options.secrets, jq, log: pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2)) },
    );
    out((options.json ? jsonReport : textReport)(metric, options, fetched));
    return fetched.result.kind === 'value' ? 0 : 1;
  } finally {
    await jq.close();
  }
};
