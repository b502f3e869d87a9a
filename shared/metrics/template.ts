// Placeholders in a Metric's templates (DESIGN 3.3): `$name` and `${name}` are replaced, `$$` is a
// literal `$`, and a `$` followed by anything else stays as it is (PromQL's `$` in regexes).

export type TemplatePart = string | { placeholder: string };

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const SHORT_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** The literal text and placeholders of `template`; `where` names it in the reason. */
export function parseTemplate(template: string, where: string): Parsed<TemplatePart[]> {
  const parts: TemplatePart[] = [];
  let literal = '';
  let at = 0;
  while (at < template.length) {
    const dollar = template.indexOf('$', at);
    if (dollar < 0) {
      literal += template.slice(at);
      break;
    }
    literal += template.slice(at, dollar);
    const next = template[dollar + 1];
    if (next === '$') {
      literal += '$';
      at = dollar + 2;
      continue;
    }
    let name: string | undefined;
    if (next === '{') {
      const close = template.indexOf('}', dollar + 2);
      if (close < 0) return { ok: false, reason: `${where}: "\${" without a closing "}"` };
      name = template.slice(dollar + 2, close);
      if (!name) return { ok: false, reason: `${where}: empty placeholder "\${}"` };
      at = close + 1;
    } else {
      name = SHORT_NAME.exec(template.slice(dollar + 1))?.[0];
      at = dollar + 1 + (name?.length ?? 0);
    }
    if (name === undefined) {
      literal += '$';
      continue;
    }
    if (literal) parts.push(literal);
    literal = '';
    parts.push({ placeholder: name });
  }
  if (literal) parts.push(literal);
  return { ok: true, value: parts };
}

export function placeholdersOf(parts: TemplatePart[]): string[] {
  return parts.flatMap((part) => (typeof part === 'string' ? [] : [part.placeholder]));
}

/**
 * `template` with every placeholder replaced by `lookup`; a placeholder that `lookup` does not know
 * fails the whole substitution, so a half-substituted text is never used.
 */
export function substitute(
  template: string,
  where: string,
  lookup: (name: string) => string | undefined,
  unknown: (name: string) => string,
): Parsed<string> {
  const parsed = parseTemplate(template, where);
  if (!parsed.ok) return parsed;
  let text = '';
  for (const part of parsed.value) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const value = lookup(part.placeholder);
    if (value === undefined) return { ok: false, reason: `${where}: ${unknown(part.placeholder)}` };
    text += value;
  }
  return { ok: true, value: text };
}
