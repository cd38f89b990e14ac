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

/**
 * a ∪ b. The result shares unchanged subtrees with `a` and `b` (it may be one of them), so
 * field sets are never changed in place once built: a write builds new nodes instead.
 */
export function union(a: FieldSet, b: FieldSet): FieldSet {
  if (isEmptySet(b)) return a;
  if (isEmptySet(a)) return b;
  const out: FieldSet = { ...a };
  for (const key of Object.keys(b)) out[key] = key in out ? union(out[key], b[key]) : b[key];
  return out;
}

/**
 * a minus every leaf of b (a leaf of b removes the whole subtree of a at that path). Shares
 * the subtrees of `a` that `b` does not reach, as `union` does.
 */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  if (isEmptySet(b)) return a;
  const out: FieldSet = {};
  for (const key of Object.keys(a)) {
    const subtree = a[key];
    if (!(key in b)) {
      out[key] = subtree;
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

const UNTYPED: SchemaContext = {};

/**
 * The schema contexts of a node's children, by schema node: every write walks the same few
 * definitions, and resolving `$ref`s anew for each field was a visible share of a write.
 */
interface ChildContexts {
  readonly fields: Map<string, SchemaContext>;
  items?: SchemaContext;
}

const childContextCache = new WeakMap<Definitions, WeakMap<SchemaNode, ChildContexts>>();

function childContextsOf(definitions: Definitions, node: SchemaNode): ChildContexts {
  let byNode = childContextCache.get(definitions);
  if (byNode === undefined) {
    byNode = new WeakMap();
    childContextCache.set(definitions, byNode);
  }
  let contexts = byNode.get(node);
  if (contexts === undefined) {
    contexts = { fields: new Map() };
    byNode.set(node, contexts);
  }
  return contexts;
}

function untypedContext(context: SchemaContext): SchemaContext {
  return context.definitions === undefined ? UNTYPED : { definitions: context.definitions };
}

function childSchema(context: SchemaContext, key: string): SchemaContext {
  const node = context.schema?.node;
  const definitions = context.definitions;
  if (node === undefined || definitions === undefined) return untypedContext(context);
  const fields = childContextsOf(definitions, node).fields;
  let found = fields.get(key);
  if (found === undefined) {
    const child: SchemaNode | undefined =
      node.properties?.[key] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    found = child === undefined ? { definitions } : { definitions, schema: resolveSchema(definitions, child) };
    fields.set(key, found);
  }
  return found;
}

function itemSchema(context: SchemaContext): SchemaContext {
  const items = context.schema?.node.items;
  const definitions = context.definitions;
  if (items === undefined || definitions === undefined) return untypedContext(context);
  const contexts = childContextsOf(definitions, context.schema!.node);
  contexts.items ??= { definitions, schema: resolveSchema(definitions, items) };
  return contexts.items;
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
  // The JSON of an object of those fields, written out directly: this runs for every list item a write touches.
  let members = '';
  for (const key of keys.length > 1 ? [...keys].sort() : keys) {
    const value = record[key];
    if (value === undefined) continue;
    members += `${members === '' ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return `k:{${members}}`;
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
  let items: ListItems | undefined;
  for (const key of Object.keys(set)) {
    const subtree = set[key];
    if (key === SELF) {
      out[key] = {};
      continue;
    }
    let value: Json;
    let valueContext: SchemaContext;
    if (key.startsWith('f:')) {
      const name = key.slice(2);
      if (!isObject(object) || object[name] === undefined) continue;
      value = object[name];
      if (isEmptySet(subtree)) {
        out[key] = {};
        continue;
      }
      valueContext = childSchema(context, name);
    } else {
      if (!Array.isArray(object)) continue;
      items ??= new ListItems(object, context);
      if (key.startsWith('k:')) value = items.withKey(key);
      else if (key.startsWith('v:')) value = items.withValue(key);
      if (value === undefined) continue;
      if (isEmptySet(subtree)) {
        out[key] = {};
        continue;
      }
      valueContext = itemSchema(context);
    }
    const rest = restrictToObject(subtree, value, valueContext);
    if (!isEmptySet(rest)) out[key] = rest;
  }
  return out;
}

/**
 * A list's items by their `k:` and `v:` path elements, built on first need: a set names many
 * items of one list, and finding each by scanning (and re-keying) the list was quadratic.
 * The first item with a key wins, as a scan would find it.
 */
class ListItems {
  private byKey: Map<string, Json> | undefined;
  private byValue: Map<string, Json> | undefined;

  constructor(
    private readonly list: readonly Json[],
    private readonly context: SchemaContext,
  ) {}

  withKey(key: string): Json | undefined {
    const keys = listMapKeys(this.context);
    this.byKey ??= this.index((item) => itemKey(item, keys));
    return this.byKey.get(key);
  }

  withValue(key: string): Json | undefined {
    this.byValue ??= this.index(valueKey);
    return this.byValue.get(key);
  }

  private index(keyOf: (item: Json) => string): Map<string, Json> {
    const out = new Map<string, Json>();
    for (const item of this.list) {
      const key = keyOf(item);
      if (!out.has(key)) out.set(key, item);
    }
    return out;
  }
}

/** Fields no manager owns: identity and bookkeeping the server sets (the reference's strip set). */
const SERVER_OWNED_METADATA = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'generation', 'managedFields', 'resourceVersion'];
const SERVER_OWNED: FieldSet = {
  'f:apiVersion': {},
  'f:kind': {},
  'f:metadata': Object.fromEntries(SERVER_OWNED_METADATA.map((field) => [`f:${field}`, {}])),
};

export function withoutServerOwnedFields(set: FieldSet): FieldSet {
  const out = difference(set, SERVER_OWNED);
  // metadata itself is the server's too: its `.` goes, and with it a node left empty.
  // `out` is new (SERVER_OWNED is not empty), its metadata node may be shared: rebuild that one.
  const metadata = out['f:metadata'];
  if (metadata === undefined) return out;
  const fields: FieldSet = {};
  for (const key of Object.keys(metadata)) if (key !== SELF) fields[key] = metadata[key];
  if (isEmptySet(fields)) delete out['f:metadata'];
  else out['f:metadata'] = fields;
  return out;
}
