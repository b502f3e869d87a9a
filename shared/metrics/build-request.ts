// A Metric, a version and (when the Metric has one) its secret's data, turned into the exact HTTP
// request to send. Pure: no I/O.
import type { MetricSpec } from '../kube/resources.ts';
import { parseTemplate, placeholdersOf, substitute, type Parsed } from './template.ts';

export interface VersionContext {
  name: string;
  variables: Record<string, string>;
}

export interface QueryContext {
  version: VersionContext;
  /** Whole seconds since the experiment started; at least 1 is used. */
  elapsedSeconds: number;
}

export interface SecretData {
  /** namespace/name, for reasons. */
  ref: string;
  data: Record<string, string>;
}

export interface HttpRequestSpec {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export const USER_AGENT = 'exp-controller/0.1';

/** Values for `$name` in params and body: the version's variables, then its name, then elapsedTime. */
export function versionLookup(context: QueryContext): (name: string) => string | undefined {
  const builtins: Record<string, string> = {
    name: context.version.name,
    elapsedTime: String(Math.max(1, Math.floor(context.elapsedSeconds))),
  };
  return (name) => (Object.hasOwn(context.version.variables, name) ? context.version.variables[name] : builtins[name]);
}

function unknownVersionPlaceholder(context: QueryContext): (name: string) => string {
  const known = [...Object.keys(context.version.variables), 'name', 'elapsedTime'];
  return (name) => `unknown placeholder $${name}; known: ${[...new Set(known)].join(', ')}`;
}

function secretLookup(secret: SecretData | undefined): (field: string) => string | undefined {
  return (field) => (secret && Object.hasOwn(secret.data, field) ? secret.data[field] : undefined);
}

function missingSecretField(secret: SecretData | undefined): (field: string) => string {
  return (field) =>
    secret
      ? `secret ${secret.ref} has no field "${field}"`
      : `placeholder \${${field}} is filled from a secret, and spec.secret is not set`;
}

export function buildRequest(spec: MetricSpec, context: QueryContext, secret?: SecretData): Parsed<HttpRequestSpec> {
  const fromVersion = versionLookup(context);
  const unknownVersion = unknownVersionPlaceholder(context);
  const fromSecret = secretLookup(secret);
  const missingField = missingSecretField(secret);

  if (!spec.urlTemplate) return { ok: false, reason: 'spec.urlTemplate is not set' };
  const urlText = substitute(spec.urlTemplate, 'urlTemplate', fromSecret, missingField);
  if (!urlText.ok) return urlText;
  let url: URL;
  try {
    url = new URL(urlText.value);
  } catch {
    return { ok: false, reason: 'urlTemplate does not give a valid URL after substitution' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `urlTemplate must be an http or https URL, not ${url.protocol}` };
  }
  for (const param of spec.params ?? []) {
    const value = substitute(param.value, `params.${param.name}`, fromVersion, unknownVersion);
    if (!value.ok) return value;
    url.searchParams.append(param.name, value.value);
  }

  const method = spec.method ?? 'GET';
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': USER_AGENT };
  let body: string | undefined;
  if (method === 'POST' && spec.body !== undefined) {
    const text = substitute(spec.body, 'body', fromVersion, unknownVersion);
    if (!text.ok) return text;
    try {
      JSON.parse(text.value);
    } catch (error) {
      return { ok: false, reason: `body is not valid JSON after substitution: ${(error as Error).message}` };
    }
    body = text.value;
    headers['Content-Type'] = 'application/json';
  }

  if (spec.authType === 'Basic') {
    for (const field of ['username', 'password']) {
      if (fromSecret(field) === undefined) return { ok: false, reason: `authType Basic: ${missingField(field)}` };
    }
    const credentials = `${fromSecret('username')}:${fromSecret('password')}`;
    headers.Authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
  }
  for (const header of spec.headerTemplates ?? []) {
    const value = substitute(header.value, `headerTemplates.${header.name}`, fromSecret, missingField);
    if (!value.ok) return value;
    if (/[\r\n\0]/.test(value.value)) {
      return { ok: false, reason: `headerTemplates.${header.name}: the value has a line break or NUL after substitution` };
    }
    setHeader(headers, header.name, value.value);
  }
  return { ok: true, value: { method, url: url.toString(), headers, body } };
}

/** Sets a header, replacing one of the same name in any letter case. */
function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const existing of Object.keys(headers)) {
    if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
  }
  headers[name] = value;
}

/** The values a request built from `spec` may carry from `secret`, so they can be masked. */
export function secretValuesUsed(spec: MetricSpec, secret: SecretData): string[] {
  const fields = new Set<string>();
  const collect = (template: string | undefined) => {
    const parsed = template === undefined ? undefined : parseTemplate(template, '');
    if (parsed?.ok) for (const field of placeholdersOf(parsed.value)) fields.add(field);
  };
  collect(spec.urlTemplate);
  for (const header of spec.headerTemplates ?? []) collect(header.value);
  const values = [...fields].flatMap((field) => (Object.hasOwn(secret.data, field) ? [secret.data[field]] : []));
  if (spec.authType === 'Basic') {
    const { username = '', password = '' } = secret.data;
    values.push(username, password, Buffer.from(`${username}:${password}`, 'utf8').toString('base64'));
  }
  return values.filter((value) => value.length > 0);
}
