// Kubernetes quantities ("500m", "0.01", "2Ki", "1e3") as numbers, for limits and mock levels that
// Iter8 users wrote as strings.
const DECIMAL_EXPONENTS: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_FACTORS: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/** The number a quantity stands for, or undefined when `value` is neither a finite number nor a quantity string. */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value.trim());
  if (!match) return undefined;
  const [, digits, exponent, suffix = ''] = match;
  // Parsing "500e-3" rather than multiplying by 0.001 keeps decimal quantities exact.
  const number =
    suffix in BINARY_FACTORS
      ? Number(digits) * BINARY_FACTORS[suffix]
      : Number(`${digits}e${Number(exponent ?? 0) + DECIMAL_EXPONENTS[suffix]}`);
  return Number.isFinite(number) ? number : undefined;
}
