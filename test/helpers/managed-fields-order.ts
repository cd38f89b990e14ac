/**
 * managedFields entries in one order whatever their times. Both servers sort the entries by
 * operation, then time (to the second), then manager: two writes a second apart on a loaded
 * machine swap places against two in one second, as a recording usually has them. Replays of
 * recorded managedFields compare both sides in this order; the entries are still compared whole.
 */
type Entry = Record<string, unknown>;

function keyOf(entry: Entry): string {
  return `${String(entry.operation)}/${String(entry.manager)}/${String(entry.subresource ?? '')}`;
}

export function inManagerOrder<T extends Entry>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

/** A recorded answer with its managedFields, if any, in that order. */
export function withEntriesInManagerOrder<T extends { readonly managedFields?: unknown }>(answer: T): T {
  const entries = answer.managedFields as Entry[] | undefined;
  return entries === undefined ? answer : { ...answer, managedFields: inManagerOrder(entries) };
}
