// Label selectors (`app=shop,tier in (web,api),!legacy`) and field selectors
// (`metadata.name=shop,involvedObject.kind!=Pod`), parsed and matched as the API server does.
import { badRequest } from './status.ts';

export type Requirement =
  | { key: string; op: 'exists' | '!exists' }
  | { key: string; op: '=' | '!='; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] };

export type Selector = (labels: Record<string, string> | undefined) => boolean;

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;

/** Splits on commas outside parentheses. */
function terms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += char;
  }
  out.push(current);
  return out.map((term) => term.trim()).filter(Boolean);
}

export function parseLabelSelector(text: string): Requirement[] {
  return terms(text).map((term) => {
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    let requirement: Requirement;
    if (set) {
      requirement = { key: set[1], op: set[2] as 'in' | 'notin', values: set[3].split(',').map((value) => value.trim()).filter(Boolean) };
    } else {
      const equality = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
      if (equality) requirement = { key: equality[1], op: equality[2] === '!=' ? '!=' : '=', value: equality[3] };
      else if (term.startsWith('!')) requirement = { key: term.slice(1).trim(), op: '!exists' };
      else requirement = { key: term, op: 'exists' };
    }
    if (!KEY.test(requirement.key)) throw badRequest(`unable to parse requirement: invalid label key "${requirement.key}"`);
    return requirement;
  });
}

function matches(requirement: Requirement, value: string | undefined): boolean {
  switch (requirement.op) {
    case 'exists':
      return value !== undefined;
    case '!exists':
      return value === undefined;
    case '=':
      return value === requirement.value;
    case '!=':
      return value !== requirement.value;
    case 'in':
      return value !== undefined && requirement.values.includes(value);
    case 'notin':
      return value === undefined || !requirement.values.includes(value);
  }
}

export function labelSelector(text: string | null): Selector {
  if (!text) return () => true;
  const requirements = parseLabelSelector(text);
  return (labels) => requirements.every((requirement) => matches(requirement, labels?.[requirement.key]));
}

/** Field selectors: `path=value`, `path==value`, `path!=value`, on any dotted field of the object. */
export function fieldSelector(text: string | null): (object: unknown) => boolean {
  if (!text) return () => true;
  const requirements = terms(text).map((term) => {
    const match = /^([^!=]+)(==|=|!=)(.*)$/.exec(term);
    if (!match) throw badRequest(`invalid field selector: "${term}": expected "field=value" or "field!=value"`);
    return { path: match[1].trim().split('.'), negate: match[2] === '!=', value: match[3].trim() };
  });
  return (object) =>
    requirements.every(({ path, negate, value }) => {
      const found = path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], object);
      const text = found === undefined || found === null ? '' : String(found);
      return negate ? text !== value : text === value;
    });
}
