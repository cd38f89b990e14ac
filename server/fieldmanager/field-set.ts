/**
 * A set of field paths in the reference's FieldsV1 shape: a tree whose keys are `f:<field>`,
 * `k:{<list-map keys>}` (list items by their keys), `v:<value>` (set items) and `.` (the node
 * itself, for containers a manager created). A leaf is an empty tree. The set algebra here is
 * what managedFields need for updates, and what the server-side apply engine builds on.
 */
import type { Definitions, ResolvedSchema, SchemaNode } from '../validation/decode';
import { resolveSchema } from '../validation/decode';
import { isAlwaysPresentStruct, isValueTime } from './zero-object';

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
      // a holds the path itself, which b holds too when it marks its node with `.`.
      if (!(SELF in b[key])) out[key] = {};
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

type ListType = 'atomic' | 'set' | 'map';

function markers(value: string | readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : value;
}

function listTypeOf(node: SchemaNode | undefined): ListType {
  const declared = node?.['x-kubernetes-list-type'];
  if (declared) return declared;
  // An unset list type with a merge strategy is read as a map keyed by the merge key.
  if (
    markers(node?.['x-kubernetes-patch-merge-key']).length > 0 &&
    markers(node?.['x-kubernetes-patch-strategy']).some((s) => s.split(',').includes('merge'))
  ) {
    return 'map';
  }
  return 'atomic';
}

/**
 * A schema node as field sets read it: how its maps and lists are tracked, and its children.
 * Reading these facts off the schema's JSON objects, which come in hundreds of shapes, made
 * every access a slow (megamorphic) one, and resolving `$ref`s anew for each field was a
 * visible share of a write; so each node is prepared once (see `FieldSchemas`), children on
 * first need. Without definitions, children are untyped: granular maps and atomic lists.
 */
class FieldSchema {
  readonly atomicMap: boolean;
  readonly listType: ListType;
  /** The list-map keys, sorted by name as item keys print them. */
  readonly sortedMapKeys: readonly string[];
  private readonly fields = new Map<string, FieldSchema>();
  private readonly omittedWhenEmpty = new Map<string, boolean>();
  private readonly omittedWhenZero = new Map<string, boolean>();
  private valueTimeMembers: readonly string[] | undefined;
  private valueStructMembers: readonly string[] | undefined;
  private itemsSchema: FieldSchema | undefined;
  private needsAKey: boolean | undefined;

  /** `declaredMapType`: the map type the declaring property states beside its `$ref`, which wins. */
  constructor(
    private readonly schemas: FieldSchemas | undefined,
    private readonly node: SchemaNode | undefined,
    declaredMapType?: SchemaNode['x-kubernetes-map-type'],
  ) {
    this.atomicMap = (declaredMapType ?? node?.['x-kubernetes-map-type']) === 'atomic';
    this.listType = listTypeOf(node);
    this.sortedMapKeys = [
      ...(node?.['x-kubernetes-list-map-keys'] ?? markers(node?.['x-kubernetes-patch-merge-key'])),
    ].sort();
  }

  child(key: string): FieldSchema {
    const { node, schemas } = this;
    if (node === undefined || schemas === undefined) return UNTYPED;
    let found = this.fields.get(key);
    if (found === undefined) {
      const declared =
        node.properties !== undefined && Object.hasOwn(node.properties, key) ? node.properties[key] : undefined;
      const child = declared ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
      found = child === undefined ? UNTYPED : schemas.of(child);
      this.fields.set(key, found);
    }
    return found;
  }

  /**
   * Whether the member `key` is a map or list that Go's `omitempty` leaves out when empty: the
   * reference counts fields on its typed object as JSON, so an empty `labels: {}` is no field.
   * Only built-in kinds (those with protobuf facts) are Go structs; a custom resource keeps `{}`.
   */
  omitsWhenEmpty(key: string): boolean {
    const node = this.node;
    if (node?.properties === undefined || !Object.hasOwn(node.properties, key)) return false;
    let found = this.omittedWhenEmpty.get(key);
    if (found === undefined) {
      const facts = (node.properties[key] as { readonly 'x-capstan-protobuf'?: ProtobufFacts })['x-capstan-protobuf'];
      found = facts !== undefined && (facts.map !== undefined || facts.repeated === true) && facts.omitempty === true;
      this.omittedWhenEmpty.set(key, found);
    }
    return found;
  }

  /**
   * Whether the member `key` is a plain scalar (no pointer, no named type such as Quantity) that
   * Go's `omitempty` leaves out at its zero value: a PriorityClass's `description: ""`, an
   * Event's `count: 0` are no fields the reference's typed object has.
   */
  omitsWhenZero(key: string): boolean {
    const node = this.node;
    if (node?.properties === undefined || !Object.hasOwn(node.properties, key)) return false;
    let found = this.omittedWhenZero.get(key);
    if (found === undefined) {
      const declared = node.properties[key] as SchemaNode & { readonly 'x-capstan-protobuf'?: ProtobufFacts };
      const facts = declared['x-capstan-protobuf'];
      found =
        facts?.omitempty === true &&
        facts.pointer !== true &&
        (declared.type === 'string' ||
          declared.type === 'integer' ||
          declared.type === 'number' ||
          declared.type === 'boolean');
      this.omittedWhenZero.set(key, found);
    }
    return found;
  }

  /**
   * The members that are metav1.Time or MicroTime held by value: Go's JSON writes them (as null
   * when zero) whatever their omitempty says. ObjectMeta's creationTimestamp is left out: 1.34
   * tags it omitzero, so an unset one is absent.
   */
  valueTimes(): readonly string[] {
    if (this.valueTimeMembers === undefined) {
      const properties = this.node?.properties ?? {};
      this.valueTimeMembers = Object.keys(properties).filter((key) => {
        const declared = properties[key];
        const definition = declared.$ref?.startsWith(DEFINITIONS_REF)
          ? declared.$ref.slice(DEFINITIONS_REF.length)
          : undefined;
        return key !== 'creationTimestamp' && isValueTime(declared, definition);
      });
    }
    return this.valueTimeMembers;
  }

  /**
   * The members that are structs Go holds by value (the schema's `default: {}` on an object
   * type): its JSON writes them, `{}` when empty, whatever the request left out.
   */
  valueStructs(): readonly string[] {
    if (this.valueStructMembers === undefined) {
      const properties = this.node?.properties ?? {};
      this.valueStructMembers = Object.keys(properties).filter((key) => {
        const resolved = this.child(key).node;
        return resolved !== undefined && isAlwaysPresentStruct(properties[key], { node: resolved });
      });
    }
    return this.valueStructMembers;
  }

  /** `record[key]` as the reference's typed object has it: an omitted empty member or zero scalar is absent. */
  member(record: Record<string, Json>, key: string): Json {
    const value = record[key];
    if (isEmptyContainer(value)) return this.omitsWhenEmpty(key) ? undefined : value;
    if (value === '' || value === 0 || value === false) return this.omitsWhenZero(key) ? undefined : value;
    return value;
  }

  /**
   * Whether an item must hold at least one of the list-map keys: none of them has a default
   * (an item without a key takes its default instead, as a port's protocol takes TCP).
   */
  itemsNeedAKey(): boolean {
    if (this.needsAKey === undefined) {
      const properties = this.items().node?.properties ?? {};
      this.needsAKey =
        this.sortedMapKeys.length > 0 &&
        this.sortedMapKeys.every(
          (key) => (properties[key] as { readonly default?: unknown } | undefined)?.default === undefined,
        );
    }
    return this.needsAKey;
  }

  items(): FieldSchema {
    const items = this.node?.items;
    if (items === undefined || this.schemas === undefined) return UNTYPED;
    this.itemsSchema ??= this.schemas.of(items);
    return this.itemsSchema;
  }
}

const UNTYPED = new FieldSchema(undefined, undefined);

const DEFINITIONS_REF = '#/definitions/';

interface ProtobufFacts {
  readonly map?: unknown;
  readonly repeated?: boolean;
  readonly omitempty?: boolean;
  readonly pointer?: boolean;
}

function isEmptyContainer(value: Json): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/**
 * An embedded object of any kind (a driver's opaque parameters, a device's status data, a
 * ControllerRevision's data): the reference's schema converter hard-codes it as one atomic
 * value, whatever it holds, so it is owned whole and never field by field.
 */
const RAW_EXTENSION_REF = '#/definitions/io.k8s.apimachinery.pkg.runtime.RawExtension';
const RAW_EXTENSION = new FieldSchema(undefined, { type: 'object', 'x-kubernetes-map-type': 'atomic' });

/** The FieldSchemas of one set of definitions, one per schema node (so recursive schemas stay finite). */
class FieldSchemas {
  private readonly byNode = new WeakMap<SchemaNode, FieldSchema>();
  private readonly byResolvedNode = new WeakMap<SchemaNode, FieldSchema>();

  constructor(private readonly definitions: Definitions) {}

  /** A node as a schema declares it, `$ref`s followed. */
  of(node: SchemaNode): FieldSchema {
    let found = this.byNode.get(node);
    if (found === undefined) {
      // The declaring node's map type wins: a PersistentVolume's claimRef is a granular
      // ObjectReference, a type that is atomic elsewhere.
      found =
        node.$ref === RAW_EXTENSION_REF
          ? RAW_EXTENSION
          : new FieldSchema(this, resolveSchema(this.definitions, node).node, node['x-kubernetes-map-type']);
      this.byNode.set(node, found);
    }
    return found;
  }

  /** A node already resolved (a context's schema), taken as it is. */
  ofResolved(node: SchemaNode): FieldSchema {
    let found = this.byResolvedNode.get(node);
    if (found === undefined) {
      found = new FieldSchema(this, node);
      this.byResolvedNode.set(node, found);
    }
    return found;
  }
}

const fieldSchemas = new WeakMap<Definitions, FieldSchemas>();

function fieldSchemaOf(context: SchemaContext): FieldSchema {
  const { definitions, schema } = context;
  if (schema === undefined) return UNTYPED;
  // A node without definitions to resolve its children against has typed facts of its own only.
  if (definitions === undefined) return new FieldSchema(undefined, schema.node);
  let schemas = fieldSchemas.get(definitions);
  if (schemas === undefined) {
    schemas = new FieldSchemas(definitions);
    fieldSchemas.set(definitions, schemas);
  }
  return schemas.ofResolved(schema.node);
}

/** `k:{"port":8080,"protocol":"UDP"}`: the item's key fields, sorted by name as the reference does. */
export function itemKey(item: Json, keys: readonly string[]): string {
  return itemKeyOf(item, keys.length > 1 ? [...keys].sort() : keys);
}

/** The JSON of an object of those fields, written out directly: this runs for every list item a write touches. */
function itemKeyOf(item: Json, sortedKeys: readonly string[]): string {
  const record = isObject(item) ? item : {};
  let members = '';
  for (const key of sortedKeys) {
    const value = record[key];
    if (value === undefined) continue;
    members += `${members === '' ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return `k:{${members}}`;
}

/** The keys that occur more than once. */
function repeatedKeys(keys: readonly string[]): ReadonlySet<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) repeated.add(key);
    seen.add(key);
  }
  return repeated;
}

/** Whether the items of `key` are the same, in the same order, before and after. */
function sameGroup(before: readonly Json[], after: readonly Json[], key: string, keys: readonly string[]): boolean {
  const group = (list: readonly Json[]) => list.filter((item) => itemKeyOf(item, keys) === key);
  return equalValues(group(before), group(after));
}

export function valueKey(item: Json): string {
  return `v:${JSON.stringify(item)}`;
}

/** Structural equality of JSON values, independent of key order. */
function equalValues(a: Json, b: Json): boolean {
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) if (!(key in b) || !equalValues(a[key], b[key])) return false;
    return true;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equalValues(a[i], b[i])) return false;
    return true;
  }
  return a === b;
}

// ---- sets from objects -------------------------------------------------------------------

/**
 * An object the reference's field manager cannot type: a keyed list holds an item that is no
 * object, or that holds none of the keys when none has a default (a ServiceAccount's
 * `secrets: [{}]`; an item missing only some keys is keyed by the others). Its update then keeps
 * no managedFields at all, as the reference removes them when it fails to compute them.
 */
export class UntypedObjectError extends Error {
  constructor() {
    super('a keyed list holds an item without its keys');
  }
}

/**
 * The fields of `next` that are new or different from `previous` (absent: everything), with `.`
 * on containers that did not exist before. Removed fields are not in it (see `withoutRemovedFields`).
 */
export function changedFields(previous: Json, next: Json, context: SchemaContext): FieldSet {
  return changedIn(previous, next, fieldSchemaOf(context));
}

function changedIn(previous: Json, next: Json, schema: FieldSchema): FieldSet {
  const out: FieldSet = {};
  if (isObject(next) && !schema.atomicMap) {
    const before = isObject(previous) ? previous : undefined;
    for (const key of Object.keys(next)) {
      const value = schema.member(next, key);
      if (value === undefined) continue;
      const old = before === undefined ? undefined : schema.member(before, key);
      if (old !== undefined && equalValues(old, value)) continue;
      const childSchema = schema.child(key);
      const node = changedChild(old, value, childSchema);
      if (onlyLostMembers(old, value, node, childSchema)) continue;
      out[`f:${key}`] = node;
    }
    // A struct Go holds by value is in a new element's typed object even when left out; in an
    // existing one it was there before too.
    if (before === undefined)
      for (const key of schema.valueStructs()) if (next[key] === undefined) out[`f:${key}`] = {};
    // A time Go holds by value is in the typed object even when unset (null): a new element
    // has it, an existing one changes it only from a time to none.
    for (const key of schema.valueTimes()) {
      if (next[key] !== undefined) continue;
      if (before !== undefined && (before[key] ?? null) === null) continue;
      out[`f:${key}`] = {};
    }
    return out;
  }
  if (Array.isArray(next)) {
    const type = schema.listType;
    const before = Array.isArray(previous) ? previous : [];
    if (type === 'set') {
      const had = new Set(before.map(valueKey));
      for (const item of next) if (!had.has(valueKey(item))) out[valueKey(item)] = {};
      return out;
    }
    if (type === 'map') {
      const keys = schema.sortedMapKeys;
      const items = schema.items();
      const needsAKey = schema.itemsNeedAKey();
      for (const item of next)
        if (!isObject(item) || (needsAKey && keys.every((key) => item[key] === undefined)))
          throw new UntypedObjectError();
      const oldByKey = new Map(before.map((item) => [itemKeyOf(item, keys), item] as const));
      const nextKeys = next.map((item) => itemKeyOf(item, keys));
      const repeated = repeatedKeys(nextKeys);
      for (const [index, item] of next.entries()) {
        const key = nextKeys[index];
        // Items sharing a key are one element the reference owns by its key alone (no `.`, no
        // members), as its typed conversion of duplicates has it; changed when the group is.
        if (repeated.has(key)) {
          if (!(key in out) && !sameGroup(before, next, key, keys)) out[key] = {};
          continue;
        }
        const old = oldByKey.get(key);
        if (old !== undefined && equalValues(old, item)) continue;
        const node = changedIn(old, item, items);
        if (onlyLostMembers(old, item, node, items)) continue;
        if (old === undefined) node[SELF] = {};
        out[key] = node;
      }
      return out;
    }
  }
  return out;
}

/**
 * Whether a container that was there before and is there still, or is null now, changed only by
 * losing members: the reference's comparison marks added and modified paths, and a container
 * whose members it tracks is neither (null reads as one without members), so the write does not
 * take the container itself.
 */
function onlyLostMembers(previous: Json, next: Json, changed: FieldSet, schema: FieldSchema): boolean {
  if (previous === undefined || !isEmptySet(changed)) return false;
  if (isObject(previous) && (isObject(next) || next === null)) return !schema.atomicMap;
  if (Array.isArray(previous) && (Array.isArray(next) || next === null))
    return schema.listType === 'set' || schema.listType === 'map';
  return false;
}

function changedChild(previous: Json, next: Json, schema: FieldSchema): FieldSet {
  const granularMap = isObject(next) && !schema.atomicMap;
  const granularList = Array.isArray(next) && schema.listType !== 'atomic';
  if (!granularMap && !granularList) return {};
  const node = changedIn(previous, next, schema);
  // A map or list that was absent is itself created (one that was null already existed).
  if (previous === undefined && !isEmptySet(node)) node[SELF] = {};
  return node;
}

/**
 * `set` without the paths a write removed (those in `previous` and not in `next`), written as
 * the reference decodes field sets: a member's node empty, a `.` only on a node that also has
 * children, children in `order`. A path absent from both objects stays: the reference takes
 * from the managers only what the write itself removed. Undefined when nothing is left (a set
 * holding only its own `.` is not nothing). Removing and rewriting in one walk saves building
 * the tree twice.
 */
export function withoutRemovedFields(
  set: FieldSet,
  objects: { readonly previous: Json; readonly next: Json },
  context: SchemaContext,
  order: (a: string, b: string) => number,
): FieldSet | undefined {
  return withoutRemoved(set, objects.previous, objects.next, fieldSchemaOf(context), order);
}

/** A member or item of both objects under one path element; undefined where a side lacks it. */
interface Members {
  readonly previous: Json;
  readonly next: Json;
}

function withoutRemoved(
  set: FieldSet,
  previous: Json,
  next: Json,
  schema: FieldSchema,
  order: (a: string, b: string) => number,
): FieldSet | undefined {
  const out: FieldSet = {};
  let kept = 0;
  let previousItems: ListItems | undefined;
  let nextItems: ListItems | undefined;
  const keys = Object.keys(set);
  const hasSelf = keys.includes(SELF);
  // The node itself was removed when the previous object had it and the next has not.
  const removed = previous !== undefined && next === undefined;
  if (hasSelf && !removed) out[SELF] = {};
  for (const key of inOrder(hasSelf ? keys.filter((element) => element !== SELF) : keys, order)) {
    const subtree = set[key];
    const field = key.startsWith('f:') ? key.slice(2) : undefined;
    let members: Members;
    if (field !== undefined) {
      members = {
        previous: isObject(previous) ? schema.member(previous, field) : undefined,
        next: isObject(next) ? schema.member(next, field) : undefined,
      };
    } else {
      if (Array.isArray(previous)) previousItems ??= new ListItems(previous, schema);
      if (Array.isArray(next)) nextItems ??= new ListItems(next, schema);
      const item = (items: ListItems | undefined) =>
        items === undefined ? undefined : key.startsWith('k:') ? items.withKey(key) : items.withValue(key);
      members = { previous: item(previousItems), next: item(nextItems) };
    }
    if (isEmptySet(subtree)) {
      if (members.previous !== undefined && members.next === undefined) continue;
      out[key] = {};
      kept++;
      continue;
    }
    const childSchema = field !== undefined ? schema.child(field) : schema.items();
    const rest = withoutRemoved(subtree, members.previous, members.next, childSchema, order);
    if (rest === undefined) continue;
    out[key] = rest;
    kept++;
  }
  if (kept > 0) return out;
  return hasSelf && !removed ? {} : undefined;
}

/** The keys sorted; most nodes have one child, or children already in order, which need no sort. */
function inOrder(keys: string[], order: (a: string, b: string) => number): string[] {
  for (let i = 1; i < keys.length; i++) if (order(keys[i - 1], keys[i]) > 0) return keys.sort(order);
  return keys;
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
    private readonly schema: FieldSchema,
  ) {}

  withKey(key: string): Json | undefined {
    const keys = this.schema.sortedMapKeys;
    this.byKey ??= this.index((item) => itemKeyOf(item, keys));
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
export const SERVER_OWNED_METADATA = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'generation',
  'managedFields',
  'resourceVersion',
];
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
