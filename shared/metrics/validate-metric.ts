// What is wrong with a Metric before it is ever queried (on-metric-apply reports it in the
// Metric's Ready condition): templates, URL, body, auth and secret, mock levels, the jq expression.
import type { MetricSpec } from '../kube/resources.ts';
import { parseQuantity } from '../kube/quantity.ts';
import type { JqCompileOutcome } from './jq/jq-outcome.ts';
import { parseTemplate, placeholdersOf, substitute } from './template.ts';

export interface MetricProblem {
  /** A CamelCase reason for the condition. */
  reason: string;
  /** What is wrong and what to do. */
  message: string;
}

export type CompileJq = (expression: string) => Promise<JqCompileOutcome>;

/** Placeholders of the templates filled from the secret (urlTemplate and headerTemplates). */
function secretPlaceholders(spec: MetricSpec): { field: string; where: string }[] {
  const templates = [
    ['urlTemplate', spec.urlTemplate],
    ...(spec.headerTemplates ?? []).map((header) => [`headerTemplates.${header.name}`, header.value]),
  ] as [string, string | undefined][];
  return templates.flatMap(([where, template]) => {
    const parsed = template === undefined ? undefined : parseTemplate(template, where);
    return parsed?.ok ? placeholdersOf(parsed.value).map((field) => ({ field, where })) : [];
  });
}

function templateProblems(spec: MetricSpec): MetricProblem[] {
  const templates = [
    ['urlTemplate', spec.urlTemplate],
    ['body', spec.body],
    ...(spec.params ?? []).map((param) => [`params.${param.name}`, param.value]),
    ...(spec.headerTemplates ?? []).map((header) => [`headerTemplates.${header.name}`, header.value]),
  ] as [string, string | undefined][];
  return templates.flatMap(([where, template]) => {
    const parsed = template === undefined ? { ok: true as const } : parseTemplate(template, where);
    return parsed.ok ? [] : [{ reason: 'InvalidTemplate', message: `${parsed.reason}; write \${name} with both braces, or $$ for a literal $` }];
  });
}

function urlProblems(spec: MetricSpec): MetricProblem[] {
  if (!spec.urlTemplate) return [];
  // Secret values are not known here: any placeholder stands in as "x" to check the URL's shape.
  const filled = substitute(spec.urlTemplate, 'urlTemplate', () => 'x', () => '');
  if (!filled.ok) return [];
  try {
    const url = new URL(filled.value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return [];
    return [{ reason: 'InvalidURL', message: `urlTemplate must be an http or https URL, not ${url.protocol}` }];
  } catch {
    return [{ reason: 'InvalidURL', message: 'urlTemplate is not a well-formed URL; write it as https://host[:port]/path' }];
  }
}

function bodyProblems(spec: MetricSpec): MetricProblem[] {
  if (spec.body === undefined) return [];
  if ((spec.method ?? 'GET') !== 'POST') return [{ reason: 'InvalidBody', message: 'body is sent only with POST; set method: POST or remove body' }];
  // A placeholder may stand for a number or sit inside a string: 1 fits both.
  const filled = substitute(spec.body, 'body', () => '1', () => '');
  if (!filled.ok) return [];
  try {
    JSON.parse(filled.value);
    return [];
  } catch (error) {
    return [{ reason: 'InvalidBody', message: `body is not valid JSON (with each placeholder as 1): ${(error as Error).message}` }];
  }
}

function authProblems(spec: MetricSpec): MetricProblem[] {
  const fromSecret = secretPlaceholders(spec);
  if (spec.authType && !spec.secret) {
    return [{ reason: 'InvalidAuth', message: `authType ${spec.authType} needs spec.secret: the Secret that holds the credentials` }];
  }
  if (!spec.secret && fromSecret.length) {
    const { field, where } = fromSecret[0];
    return [{ reason: 'InvalidAuth', message: `${where} uses \${${field}} from a secret, and spec.secret is not set` }];
  }
  if ((spec.authType === 'APIKey' || spec.authType === 'Bearer') && !fromSecret.length) {
    const example = spec.authType === 'Bearer' ? 'Authorization: Bearer ${token}' : 'X-API-Key: ${apikey}';
    return [{ reason: 'InvalidAuth', message: `authType ${spec.authType} uses no secret field: add a header template such as "${example}", or put \${field} in urlTemplate` }];
  }
  if (spec.secret && !spec.authType && !fromSecret.length) {
    return [{ reason: 'InvalidAuth', message: 'spec.secret is set but nothing uses it: set authType, or use ${field} in urlTemplate or headerTemplates' }];
  }
  return [];
}

function mockProblems(spec: MetricSpec): MetricProblem[] {
  return (spec.mock ?? []).flatMap((entry) =>
    parseQuantity(entry.level) === undefined
      ? [{ reason: 'InvalidMock', message: `mock level of version "${entry.name}" is not a number or a quantity (such as 12.5 or "500m")` }]
      : [],
  );
}

async function jqProblems(spec: MetricSpec, compile: CompileJq): Promise<MetricProblem[]> {
  if (spec.mock || !spec.jqExpression) return [];
  const outcome = await compile(spec.jqExpression);
  switch (outcome.kind) {
    case 'compiled':
      return [];
    case 'compile-error':
      return [{ reason: 'InvalidJqExpression', message: `jqExpression does not compile: ${outcome.message}` }];
    case 'timeout':
      return [{ reason: 'InvalidJqExpression', message: 'jqExpression took too long to compile' }];
    case 'engine-failure':
      throw new Error(`jq engine failure: ${outcome.message}`);
  }
}

/** Every problem of the Metric, in the order a user would fix them; none means it is ready. */
export async function metricProblems(spec: MetricSpec, compile: CompileJq): Promise<MetricProblem[]> {
  if (spec.mock) return mockProblems(spec);
  return [...templateProblems(spec), ...urlProblems(spec), ...bodyProblems(spec), ...authProblems(spec), ...(await jqProblems(spec, compile))];
}
