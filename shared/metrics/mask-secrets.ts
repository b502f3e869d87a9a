export const MASK = '****';

/** A function that replaces every occurrence of the given secret values (and their URL- and JSON-escaped forms) in a text. */
export function secretMasker(values: readonly string[]): (text: string) => string {
  const forms = new Set<string>();
  for (const value of values) {
    if (!value) continue;
    forms.add(value);
    forms.add(encodeURIComponent(value));
    forms.add(new URLSearchParams({ v: value }).toString().slice(2));
    forms.add(JSON.stringify(value).slice(1, -1));
  }
  // Longest first, so a value that contains another is masked whole.
  const ordered = [...forms].filter(Boolean).sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((masked, form) => masked.split(form).join(MASK), text);
}
