/**
 * A number literal whose form decides whether the reference takes it: `1e2`, `1.0` or a
 * literal past 2^53 is a number to JSON.parse, but Go refuses it for an integer member and
 * keeps every digit of an int64. Kept as text until typing knows the member's type.
 */
export class NumberLiteral {
  constructor(readonly source: string) {}

  get value(): number {
    return Number(this.source);
  }
}

/** The value with every NumberLiteral made a number again, for members that take any JSON. */
export function plainNumbers(value: unknown): unknown {
  if (value instanceof NumberLiteral) return value.value;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(plainNumbers);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = plainNumbers((value as Record<string, unknown>)[key]);
  return out;
}

/**
 * The first literal (in the order the text held them) too big for a float64, which Go's decoder
 * refuses where JSON.parse would make it Infinity.
 */
export function firstOverflowingLiteral(value: unknown): string | undefined {
  if (value instanceof NumberLiteral) return Number.isFinite(value.value) ? undefined : value.source;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const member of Array.isArray(value) ? value : Object.values(value)) {
    const found = firstOverflowingLiteral(member);
    if (found !== undefined) return found;
  }
  return undefined;
}
