/**
 * A set of field paths in the reference's FieldsV1 shape: a tree whose keys are `f:<field>`,
 * `k:{<list-map keys>}` (list items by their keys), `v:<value>` (set items) and `.` (the node
 * itself, for containers a manager created). A leaf is an empty tree. The set algebra here is
 * what managedFields need for updates, and what the server-side apply engine builds on.
 */
import type { Definitions, ResolvedSchema, SchemaNode } from '../validation/decode';
import { resolveSchema } from '../validation/decode';

export interface FieldSet {
  [key: string]: FieldSet;
}

export const SELF = '.';

export function isEmptySet(set: FieldSet): boolean {
  return Object.keys(set).length === 0;
}

/** a ∪ b, as a new set. */
export function union(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = structuredClone(a);
  for (const [key, subtree] of Object.entries(b)) {
    out[key] = key in out ? union(out[key], subtree) : structuredClone(subtree);
  }
  return out;
}

/** a minus every leaf of b (a leaf of b removes the whole subtree of a at that path). */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = {};
  for (const [key, subtree] of Object.entries(a)) {
    if (!(key in b)) {
      out[key] = structuredClone(subtree);
      continue;
    }
    if (isEmptySet(b[key])) continue;
    if (isEmptySet(subtree)) {
      out[key] = {};
      continue;
    }
    const rest = difference(subtree, b[key]);
    if (!isEmptySet(rest)) out[key] = rest;
  }
  return out;
}

// ---- how values map to path elements -----------------------------------------------------

/** What the schema says about a value's children; no schema means granular maps and atomic lists. */
export interface SchemaContext {
  readonly definitions?: Definitions;
  readonly schema?: ResolvedSchema;
}

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function childSchema(context: SchemaContext, key: string): SchemaContext {
  const node = context.schema?.node;
  if (node === undefined || context.definitions === undefined) return { definitions: context.definitions };
  const child: SchemaNode | undefined =
    node.properties?.[key] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
  return child === undefined ? { definitions: context.definitions } : { definitions: context.definitions, schema: resolveSchema(context.definitions, child) };
}

function itemSchema(context: SchemaContext): SchemaContext {
  const items = context.schema?.node.items;
  if (items === undefined || context.definitions === undefined) return { definitions: context.definitions };
  return { definitions: context.definitions, schema: resolveSchema(context.definitions, items) };
}

function listType(context: SchemaContext): 'atomic' | 'set' | 'map' {
  const node = context.schema?.node;
  const declared = node?.['x-kubernetes-list-type'];
  if (declared) return declared;
  // An unset list type with a merge strategy is read as a map keyed by the merge key.
  if (markers(node?.['x-kubernetes-patch-merge-key']).length > 0 && markers(node?.['x-kubernetes-patch-strategy']).some((s) => s.split(',').includes('merge'))) {
    return 'map';
  }
  return 'atomic';
}

function markers(value: string | readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : value;
}

function listMapKeys(context: SchemaContext): readonly string[] {
  const node = context.schema?.node;
  return node?.['x-kubernetes-list-map-keys'] ?? markers(node?.['x-kubernetes-patch-merge-key']);
}

function isAtomicMap(context: SchemaContext): boolean {
  return context.schema?.node['x-kubernetes-map-type'] === 'atomic';
}

/** `k:{"port":8080,"protocol":"UDP"}`: the item's key fields, sorted by name as the reference does. */
export function itemKey(item: Json, keys: readonly string[]): string {
  const record = isObject(item) ? item : {};
  const entries = [...keys].sort().filter((key) => record[key] !== undefined).map((key) => [key, record[key]] as const);
  return `k:${JSON.stringify(Object.fromEntries(entries))}`;
}

export function valueKey(item: Json): string {
  return `v:${JSON.stringify(item)}`;
}

/** Structural equality of JSON values, independent of key order. */
function equalValues(a: Json, b: Json): boolean {
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => key in b && equalValues(a[key], b[key]));
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => equalValues(item, b[i]));
  return a === b;
}

// ---- sets from objects -------------------------------------------------------------------

/**
 * The fields of `next` that are new or different from `previous` (absent: everything), with `.`
 * on containers that did not exist before. Removed fields are not in it (see `restrictToObject`).
 */
export function changedFields(previous: Json, next: Json, context: SchemaContext): FieldSet {
  const out: FieldSet = {};
  if (isObject(next) && !isAtomicMap(context)) {
    const before = isObject(previous) ? previous : undefined;
    for (const [key, value] of Object.entries(next)) {
      const old = before?.[key];
      if (old !== undefined && equalValues(old, value)) continue;
      out[`f:${key}`] = changedChild(old, value, childSchema(context, key));
    }
    return out;
  }
  if (Array.isArray(next)) {
    const type = listType(context);
    const before = Array.isArray(previous) ? previous : [];
    if (type === 'set') {
      const had = new Set(before.map(valueKey));
      for (const item of next) if (!had.has(valueKey(item))) out[valueKey(item)] = {};
      return out;
    }
    if (type === 'map') {
      const keys = listMapKeys(context);
      const items = itemSchema(context);
      const oldByKey = new Map(before.map((item) => [itemKey(item, keys), item] as const));
      for (const item of next) {
        const key = itemKey(item, keys);
        const old = oldByKey.get(key);
        if (old !== undefined && equalValues(old, item)) continue;
        const node = changedFields(old, item, items);
        if (old === undefined) node[SELF] = {};
        out[key] = node;
      }
      return out;
    }
  }
  return out;
}

function changedChild(previous: Json, next: Json, context: SchemaContext): FieldSet {
  const granularMap = isObject(next) && !isAtomicMap(context);
  const granularList = Array.isArray(next) && listType(context) !== 'atomic';
  if (!granularMap && !granularList) return {};
  const node = changedFields(previous, next, context);
  // A map or list that was absent is itself created (one that was null already existed).
  if (previous === undefined && !isEmptySet(node)) node[SELF] = {};
  return node;
}

/** Drops the paths `set` names that no longer exist in `object` (fields a write removed). */
export function restrictToObject(set: FieldSet, object: Json, context: SchemaContext): FieldSet {
  const out: FieldSet = {};
  for (const [key, subtree] of Object.entries(set)) {
    if (key === SELF) {
      out[key] = {};
      continue;
    }
    const found = lookup(object, key, context);
    if (found === undefined) continue;
    if (isEmptySet(subtree)) {
      out[key] = {};
      continue;
    }
    const rest = restrictToObject(subtree, found.value, found.context);
    if (!isEmptySet(rest)) out[key] = rest;
  }
  return out;
}

function lookup(object: Json, key: string, context: SchemaContext): { value: Json; context: SchemaContext } | undefined {
  if (key.startsWith('f:')) {
    const name = key.slice(2);
    if (!isObject(object) || object[name] === undefined) return undefined;
    return { value: object[name], context: childSchema(context, name) };
  }
  if (!Array.isArray(object)) return undefined;
  if (key.startsWith('k:')) {
    const keys = listMapKeys(context);
    const item = object.find((candidate) => itemKey(candidate, keys) === key);
    return item === undefined ? undefined : { value: item, context: itemSchema(context) };
  }
  if (key.startsWith('v:')) {
    const item = object.find((candidate) => valueKey(candidate) === key);
    return item === undefined ? undefined : { value: item, context: itemSchema(context) };
  }
  return undefined;
}

/** Fields no manager owns: identity and bookkeeping the server sets (the reference's strip set). */
const SERVER_OWNED_METADATA = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'generation', 'managedFields', 'resourceVersion'];

export function withoutServerOwnedFields(set: FieldSet): FieldSet {
  const strip: FieldSet = { 'f:apiVersion': {}, 'f:kind': {}, 'f:metadata': Object.fromEntries(SERVER_OWNED_METADATA.map((field) => [`f:${field}`, {}])) };
  const out = difference(set, strip);
  // metadata itself is the server's too: its `.` goes, and with it a node left empty.
  const metadata = out['f:metadata'];
  if (metadata !== undefined) {
    delete metadata[SELF];
    if (isEmptySet(metadata)) delete out['f:metadata'];
  }
  return out;
}
