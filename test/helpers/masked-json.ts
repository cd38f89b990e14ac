/**
 * A JSON value with what two servers (or two runs of one) cannot share masked: the walk both the
 * recorded answers and the cluster comparison make, each with its own masks.
 */
export interface Masks {
  /** A string with its volatile parts masked. */
  readonly text: (text: string) => string;
  /** A member's masked value; `walk` masks it as any other value is masked. Absent: every member is walked. */
  readonly member?: (name: string, value: unknown, walk: (value: unknown) => unknown) => unknown;
}

export function maskedJson(value: unknown, masks: Masks): unknown {
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return masks.text(item);
    if (Array.isArray(item)) return item.map(walk);
    if (typeof item !== 'object' || item === null) return item;
    return Object.fromEntries(
      Object.entries(item).map(([name, member]) => [
        name,
        masks.member === undefined ? walk(member) : masks.member(name, member, walk),
      ]),
    );
  };
  return walk(value);
}

/** A pattern and what replaces each of its matches (`$1` and the like allowed). */
export type TextMask = readonly [RegExp, string];

/** What differs between any two servers, or two runs of one, in any text: times, uids, certificate digests. */
export const VOLATILE_TEXT: readonly TextMask[] = [
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>'],
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>'],
  [/X509SHA256=[0-9a-f]{64}/g, 'X509SHA256=<digest>'],
];

/** `text` with every mask applied, in order. */
export function maskedText(text: string, masks: readonly TextMask[]): string {
  return masks.reduce((masked, [pattern, mask]) => masked.replace(pattern, mask), text);
}
