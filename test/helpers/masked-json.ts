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
