/**
 * The order of a merged list, as the reference's strategic merge fixes it: items the patch
 * names come in the patch's order (or `$setElementOrder`'s), items only the server has keep
 * their live order, and the two are interleaved by where they stood in the live list.
 */

type Json = unknown;

/** Identifies a list item: its merge-key value for lists of maps, the item itself for scalars. */
export interface ItemIdentity {
  readonly mergeKey?: string;
}

/** Go reads a missing merge key, a null one and a non-map item alike, as nil (here null). */
function identity(item: Json, by: ItemIdentity): Json {
  if (by.mergeKey === undefined) return item;
  return typeof item === 'object' && item !== null ? ((item as Record<string, Json>)[by.mergeKey] ?? null) : null;
}

export function indexIn(list: readonly Json[], item: Json, by: ItemIdentity): number {
  const wanted = identity(item, by);
  return list.findIndex((candidate) => identity(candidate, by) === wanted);
}

/** Splits `items` into those `partitionBy` names and those it does not, keeping their order. */
export function partitionByPresence(
  items: readonly Json[],
  partitionBy: readonly Json[],
  by: ItemIdentity,
): { named: Json[]; others: Json[] } {
  const present = new Set(partitionBy.map((item) => identity(item, by)));
  const named: Json[] = [];
  const others: Json[] = [];
  for (const item of items) (present.has(identity(item, by)) ? named : others).push(item);
  return { named, others };
}

/** Items found in `order` sorted by it (stable); items not in it follow, as they were. */
function sortBy(items: readonly Json[], order: readonly Json[], by: ItemIdentity): Json[] {
  const { named, others } = partitionByPresence(items, order, by);
  const ranked = named.map((item, position) => ({ item, position, rank: indexIn(order, item, by) }));
  ranked.sort((a, b) => a.rank - b.rank || a.position - b.position);
  return [...ranked.map((entry) => entry.item), ...others];
}

/**
 * Inserts each server-only item into the patch items before the first patch item that stands
 * after it in the live list; both groups keep their own relative order.
 */
function mergeSorted(
  serverOnly: readonly Json[],
  patchItems: readonly Json[],
  liveOrder: readonly Json[],
  by: ItemIdentity,
): Json[] {
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (i >= serverOnly.length) out.push(patchItems[j++]);
    else if (j >= patchItems.length) out.push(serverOnly[i++]);
    else {
      const left = indexIn(liveOrder, serverOnly[i], by);
      const right = indexIn(liveOrder, patchItems[j], by);
      if (left >= 0 && right >= 0 && left < right) out.push(serverOnly[i++]);
      else out.push(patchItems[j++]);
    }
  }
  return out;
}

export function normalizeElementOrder(options: {
  readonly patchItems: readonly Json[];
  readonly serverOnly: readonly Json[];
  readonly patchOrder: readonly Json[];
  readonly liveOrder: readonly Json[];
  readonly by: ItemIdentity;
}): Json[] {
  const { by } = options;
  const patchItems = sortBy(options.patchItems, options.patchOrder, by);
  const serverOnly = sortBy(options.serverOnly, options.liveOrder, by);
  return mergeSorted(serverOnly, patchItems, options.liveOrder, by);
}
