/**
 * Validation ratcheting (CRDValidationRatcheting, on by default in 1.34): on an update, a schema
 * or rule error raised on a value that did not change is not an error, so that tightening a
 * CRD's schema does not lock its existing objects against every other change.
 *
 * "Did not change" follows the reference's correlation of the new object with the stored one:
 * object members are matched by name where the schema gives the member a schema (a declared
 * property or an additionalProperties schema), list-type map items by their keys (all keys
 * present and scalar, the first old item with those keys); set and atomic list items are not
 * matched one by one, only the whole list is compared. An error is dropped when the deepest
 * matched node on its way from the root is equal to its old value. Objects are equal when they
 * have the same number of members and every member matches and is equal; map lists when every
 * item matches and is equal; other lists and scalars by deep equality.
 */
import { isObject } from '../json/value';
import { deepEqual } from '../status/field-errors';
import type { JSONSchemaProps } from './crd-types';
import { itemsOf, memberSchema } from './schema-members';

/** A list-map item's key, or undefined when a key is missing or not a scalar (such items match nothing). */
function mapItemKey(item: unknown, keys: readonly string[]): string | undefined {
  if (!isObject(item) || keys.length === 0) return undefined;
  const parts: unknown[] = [];
  for (const key of keys) {
    const value = item[key];
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
    parts.push(value);
  }
  return JSON.stringify(parts);
}

/**
 * Old lists' items by key (the first item with a key wins), built once per list and keys: a
 * walk looks up every new item, and a linear search each time would make a long list's update
 * quadratic.
 */
const oldItemIndexes = new WeakMap<readonly unknown[], Map<string, Map<string, unknown>>>();

function oldItemIndex(oldList: readonly unknown[], keys: readonly string[]): Map<string, unknown> {
  let byKeys = oldItemIndexes.get(oldList);
  if (byKeys === undefined) oldItemIndexes.set(oldList, (byKeys = new Map()));
  const keysText = JSON.stringify(keys);
  let index = byKeys.get(keysText);
  if (index === undefined) {
    index = new Map();
    for (const candidate of oldList) {
      const key = mapItemKey(candidate, keys);
      if (key !== undefined && !index.has(key)) index.set(key, candidate);
    }
    byKeys.set(keysText, index);
  }
  return index;
}

/**
 * The old item of a list-type map with the same keys as `item` (undefined for other lists, or
 * when none matches): how both ratcheting and the rules' `oldSelf` match list items.
 */
export function correlatedListItem(schema: JSONSchemaProps, item: unknown, oldList: unknown): unknown {
  if (schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(oldList)) return undefined;
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  const wanted = mapItemKey(item, keys);
  return wanted === undefined ? undefined : oldItemIndex(oldList, keys).get(wanted);
}

/** A node of the new object matched with its old value, comparing lazily and once. */
export class Correlation {
  private equal: boolean | undefined;
  private readonly children = new Map<string | number, Correlation | undefined>();

  constructor(
    readonly value: unknown,
    readonly old: unknown,
    readonly schema: JSONSchemaProps,
  ) {}

  /** The member `field`, when both objects have it and the schema gives it a schema. */
  key(field: string): Correlation | undefined {
    if (this.children.has(field)) return this.children.get(field);
    let child: Correlation | undefined;
    const schema = memberSchema(this.schema, field);
    if (
      isObject(this.value) &&
      isObject(this.old) &&
      field in this.value &&
      field in this.old &&
      schema !== undefined
    ) {
      child = new Correlation(this.value[field], this.old[field], schema);
    }
    this.children.set(field, child);
    return child;
  }

  /** Item `index`, when the list is a list-type map and an old item has its keys. */
  index(index: number): Correlation | undefined {
    if (this.children.has(index)) return this.children.get(index);
    let child: Correlation | undefined;
    const itemSchema = itemsOf(this.schema);
    if (Array.isArray(this.value) && index < this.value.length && itemSchema !== undefined) {
      const old = correlatedListItem(this.schema, this.value[index], this.old);
      if (old !== undefined) child = new Correlation(this.value[index], old, itemSchema);
    }
    this.children.set(index, child);
    return child;
  }

  unchanged(): boolean {
    this.equal ??= this.compare();
    return this.equal;
  }

  private compare(): boolean {
    const { value, old } = this;
    if (value === undefined || value === null || old === undefined || old === null)
      return (value ?? null) === (old ?? null);
    if (Array.isArray(value) !== Array.isArray(old) || isObject(value) !== isObject(old)) return false;
    if (Array.isArray(value) && Array.isArray(old)) {
      if (value.length !== old.length) return false;
      if (this.schema['x-kubernetes-list-type'] !== 'map') return deepEqual(value, old);
      return value.every((_, index) => this.index(index)?.unchanged() === true);
    }
    if (isObject(value) && isObject(old)) {
      const keys = Object.keys(value);
      return keys.length === Object.keys(old).length && keys.every((key) => this.key(key)?.unchanged() === true);
    }
    return deepEqual(value, old);
  }
}

/**
 * Where a validation walk stands for ratcheting: the node's correlation, if it has one, and the
 * nearest matched ancestor's, whose equality decides for nodes that cannot be matched.
 */
export class RatchetPosition {
  private constructor(
    private readonly current: Correlation | undefined,
    private readonly parent: Correlation | undefined,
  ) {}

  /** The root of an update (`old` the stored object), or nowhere (a create: nothing ratchets). */
  static of(object: unknown, old: unknown, schema: JSONSchemaProps): RatchetPosition {
    return old === undefined
      ? RatchetPosition.NONE
      : new RatchetPosition(new Correlation(object, old, schema), undefined);
  }

  static readonly NONE = new RatchetPosition(undefined, undefined);

  /** Whether errors raised at this node are dropped. */
  ratchets(): boolean {
    return (this.current ?? this.parent)?.unchanged() === true;
  }

  key(field: string): RatchetPosition {
    if (this.current === undefined) return this;
    // apiVersion and kind of the root are converted alike on both sides: their changes are invisible.
    if (this.parent === undefined && (field === 'apiVersion' || field === 'kind')) return RatchetPosition.NONE;
    return new RatchetPosition(this.current.key(field), this.current);
  }

  index(index: number): RatchetPosition {
    if (this.current === undefined) return this;
    return new RatchetPosition(this.current.index(index), this.current);
  }
}
