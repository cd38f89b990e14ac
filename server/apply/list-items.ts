/**
 * How a list item is named in a field path: by its list-map keys (`k:{"containerPort":80,
 * "protocol":"TCP"}`, an absent key field taking its schema default, as the reference does) or,
 * in a set, by its value (`v:"a"`). Atomic lists have no item paths.
 */
import { itemKey, valueKey } from '../fieldmanager/field-set';
import { isObject } from '../json/value';
import { defaultOf, fieldNode, itemNode, listMapKeysOf, listTypeOf, type TypedNode } from './schema-node';

/** True when the list's items are tracked one by one (set or map), not as one value. */
export function isGranularList(value: unknown, schema: TypedNode | undefined): value is unknown[] {
  return Array.isArray(value) && listTypeOf(schema) !== 'atomic';
}

export function itemElement(item: unknown, list: TypedNode | undefined): string {
  if (listTypeOf(list) === 'set') return valueKey(item);
  const keys = listMapKeysOf(list);
  const items = itemNode(list);
  const record = isObject(item) ? { ...item } : {};
  for (const key of keys) {
    if (record[key] === undefined) {
      const fallback = defaultOf(fieldNode(items, key));
      if (fallback !== undefined) record[key] = fallback;
    }
  }
  return itemKey(record, keys);
}
