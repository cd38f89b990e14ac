/**
 * The checks the reference's strategic merge library makes of a `$setElementOrder` list and of
 * the list it orders, in its order: the field must be a list field of a struct, the order and
 * the patch's list must agree, and the items must be of one type and, where the list has a
 * merge key, maps carrying it. The library answers each fault with an error (or, comparing
 * maps where it expects scalars, with a panic); these repeat its tests and texts.
 */
import { goQuote } from '../../../api/go-quote';
import { goTypeName, goValue } from '../../apply/go-print';
import { fieldNode, isPointerField, itemNode, type TypedNode } from '../../apply/schema-node';
import { isObject } from '../../json/value';
import {
  badArgType,
  noListOfLists,
  noMergeKey,
  nullFirstItem,
  StrategicMergePatchError,
  uncomparableItem,
} from './patch-error';

type Json = unknown;

const DIRECTIVE = '$patch';

/**
 * The schema of the list field `key` of `parent`, found as the library finds a Go struct's
 * field (an exact JSON name first, else one equal but for case); a parent that is a map, a
 * name no field has, or a field that is no list is the library's error. Without a schema
 * (content kept as it is) there is nothing to check.
 */
export function listFieldOf(parent: TypedNode | undefined, key: string): TypedNode | undefined {
  if (parent === undefined) return undefined;
  const { properties, additionalProperties } = parent.node;
  if (properties === undefined) {
    if (additionalProperties === undefined) return undefined;
    throw new StrategicMergePatchError('merging an object in json but data type is not struct, instead is: map', 500);
  }
  const lower = key.toLowerCase();
  const field = key in properties ? key : Object.keys(properties).find((name) => name.toLowerCase() === lower);
  if (field === undefined) {
    const struct = parent.definition?.slice(parent.definition.lastIndexOf('.') + 1) ?? '';
    throw new StrategicMergePatchError(
      `unable to find api field in struct ${struct} for the json field ${goQuote(key)}`,
      500,
    );
  }
  const list = fieldNode(parent, field)!;
  // The library looks through a pointer without asking what it points to.
  if (isPointerField(list)) return list;
  // A []byte member is a base64 string on the wire but a slice to Go.
  if (list.node.type !== 'array' && list.node.format !== 'byte')
    throw new StrategicMergePatchError(
      `expected slice or array type, but got: ${isPointerField(parent) ? 'ptr' : 'struct'}`,
      500,
    );
  if (itemNode(list)?.node.type === 'array') throw new StrategicMergePatchError('unexpected slice of slice', 500);
  return list;
}

/** Go's `==` on two decoded values: false across types, a panic on two maps or lists. */
function sameValue(list: string, left: Json, right: Json): boolean {
  if (goTypeName(left) !== goTypeName(right)) return false;
  if (typeof left === 'object' && left !== null) throw uncomparableItem(list, left);
  return left === right;
}

/** A value Go uses as a map key: a map or a list cannot be one. */
function hashable(list: string, item: Json): Json {
  if (typeof item === 'object' && item !== null) throw uncomparableItem(list, item);
  return item;
}

function sameMergeKey(list: string, left: Json, right: Json, mergeKey: string | undefined): boolean {
  if (mergeKey === undefined) return sameValue(list, left, right);
  if (!isObject(left)) throw badArgType('map[string]interface {}', left);
  if (!isObject(right)) throw badArgType('map[string]interface {}', right);
  if (!(mergeKey in left)) throw noMergeKey(left, mergeKey);
  if (!(mergeKey in right)) throw noMergeKey(right, mergeKey);
  return sameValue(list, left[mergeKey], right[mergeKey]);
}

/**
 * Every item the patch's list sets (deletions aside) must appear in the order list, in the same
 * relative order; items of a list with a merge key must be maps carrying it.
 */
export function checkOrderCoversPatch(options: {
  readonly list: string;
  readonly patchList: readonly Json[];
  readonly order: readonly Json[];
  readonly mergeKey: string | undefined;
}): void {
  const { list, patchList, order, mergeKey } = options;
  if (order.length === 0 || patchList.length === 0) return;
  const kept =
    mergeKey === undefined
      ? patchList
      : patchList.filter((item) => {
          if (!isObject(item)) throw badArgType('map[string]interface {}', item);
          return item[DIRECTIVE] !== 'delete';
        });
  let p = 0;
  let o = 0;
  while (p < kept.length && o < order.length) {
    const item = kept[p];
    if (isObject(item) && DIRECTIVE in item) {
      p++;
      continue;
    }
    if (sameMergeKey(list, item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < kept.length)
    throw new StrategicMergePatchError(
      `The order in patch list:\n${goValue(patchList)}\n doesn't match $setElementOrder list:\n${goValue(order)}\n`,
      500,
    );
}

/** Splits the merged items into those the order list names and the others, checking them as the library does. */
export function partitionByOrder(options: {
  readonly list: string;
  readonly merged: readonly Json[];
  readonly order: readonly Json[];
  readonly mergeKey: string | undefined;
}): { named: Json[]; others: Json[] } {
  const { list, merged, order, mergeKey } = options;
  const named: Json[] = [];
  const others: Json[] = [];
  if (mergeKey === undefined) {
    const ordered = new Set(order.map((item) => hashable(list, item)));
    for (const item of merged) (ordered.has(hashable(list, item)) ? named : others).push(item);
    return { named, others };
  }
  for (const item of merged) {
    if (!isObject(item)) throw badArgType('map[string]interface {}', item);
    if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
    (orderNames(list, order, mergeKey, item[mergeKey]) ? named : others).push(item);
  }
  return { named, others };
}

/** Whether an order item of a list of maps has the merge-key value; the order items up to it must be maps. */
function orderNames(list: string, order: readonly Json[], mergeKey: string, value: Json): boolean {
  return order.some((item, index) => {
    if (!isObject(item)) throw new StrategicMergePatchError(`value for key ${index} is not a map`, 500);
    return mergeKey in item && sameValue(list, item[mergeKey], value);
  });
}

/**
 * The one type of the items of `lists` (maps or scalars), undefined when they have none: a list
 * item, or items of different Go types, are the library's errors.
 */
export function elementKindOf(list: string, lists: readonly (readonly Json[])[]): 'map' | 'scalar' | undefined {
  let first: Json;
  let found = false;
  for (const items of lists) {
    for (const item of items) {
      if (!found) {
        // The library asks the first item's type for its kind: a null has none (a panic there).
        if (item === null) throw nullFirstItem(list);
        if (Array.isArray(item)) throw noListOfLists();
        first = item;
        found = true;
      } else if (goTypeName(item) !== goTypeName(first)) {
        throw new StrategicMergePatchError(`list element types are not identical: ${goValue(lists)}`, 500);
      }
    }
  }
  if (!found) return undefined;
  return isObject(first) ? 'map' : 'scalar';
}

/** Before ordering a list of maps, every item and every order item must be a map with the merge key. */
export function checkMergeKeys(mergeKey: string | undefined, ...lists: (readonly Json[])[]): void {
  for (const items of lists) {
    for (const item of items) {
      if (!isObject(item)) throw badArgType('map[string]interface {}', item);
      if (mergeKey === undefined || !(mergeKey in item)) throw noMergeKey(item, mergeKey ?? '');
    }
  }
}
