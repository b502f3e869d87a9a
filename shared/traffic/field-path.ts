// A weightObjRef's fieldPath (".spec.traffic[1].percent") as steps into an object, and as the
// JSON pointer that patches it.

export type Step = string | number;

export function parseFieldPath(fieldPath: string): Step[] {
  const steps: Step[] = [];
  const pattern = /\.([A-Za-z0-9_-]+)|\[(\d+)\]/y;
  let consumed = 0;
  for (let match = pattern.exec(fieldPath); match; match = pattern.exec(fieldPath)) {
    steps.push(match[1] ?? Number(match[2]));
    consumed = pattern.lastIndex;
  }
  if (consumed !== fieldPath.length || !steps.length) {
    throw new Error(`fieldPath "${fieldPath}" is not of the form .spec.traffic[1].percent`);
  }
  return steps;
}

/** The value at `steps`, or where the path stops. */
export function valueAt(object: unknown, steps: Step[]): { found: true; value: unknown } | { found: false; missing: string } {
  let node = object;
  for (const [index, step] of steps.entries()) {
    const container = node as Record<string | number, unknown> | undefined;
    const present = typeof step === 'number' ? Array.isArray(container) && step < container.length : !!container && typeof container === 'object' && !Array.isArray(container) && step in container;
    if (!present) return { found: false, missing: pathText(steps.slice(0, index + 1)) };
    node = container![step];
  }
  return { found: true, value: node };
}

export function pathText(steps: Step[]): string {
  return steps.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('');
}

export function jsonPointer(steps: Step[]): string {
  return steps.map((step) => `/${String(step).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
