/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) as the reference applies it
 * on the server: maps merge key by key, `null` removes a key, lists follow their field's patch
 * strategy (`merge` by the merge key, scalars unioned; anything else replaced), and the
 * directives `$patch` (replace/delete), `$retainKeys`, `$setElementOrder/<list>` and
 * `$deleteFromPrimitiveList/<list>` steer it. Strategies and merge keys come from the schema
 * definitions (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`).
 *
 * Written here because no maintained JavaScript library implements this Kubernetes-specific
 * format against an OpenAPI schema.
 */
import { copyJson } from '../json/value';
import { goStringVerb, goValue } from '../apply/go-print';
import { fieldNode, itemNode, patchMergeKey, patchStrategies, type TypedNode } from '../apply/schema-node';
import { normalizeElementOrder, partitionByPresence } from './strategic/element-order';
import { badArgType, badSetElementOrder, noMergeKey, StrategicMergePatchError } from './strategic/patch-error';
import {
  checkMergeKeys,
  checkOrderCoversPatch,
  elementKindOf,
  listFieldOf,
  partitionByOrder,
} from './strategic/ordered-list-checks';

export { StrategicMergePatchError } from './strategic/patch-error';

type Json = unknown;
type JsonObject = Record<string, Json>;

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
// The library's prefixes: a key that starts so is the directive, with or without the `/` after.
const SET_ELEMENT_ORDER = '$setElementOrder';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

const badRetainKeys = () => new StrategicMergePatchError('invalid patch format of retainKeys', 400);
const badPrimitiveList = () => new StrategicMergePatchError('invalid patch format of primitive list', 400);

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The list a directive key names: what follows `<prefix>/`; any other form is the directive's bad format. */
function directiveTarget(key: string, prefix: string, badFormat: () => StrategicMergePatchError): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw badFormat();
  return key.slice(slash + 1);
}

function badPatchType(directive: Json, map: JsonObject): StrategicMergePatchError {
  return new StrategicMergePatchError(`unknown patch type: ${goStringVerb(directive)} in map: ${goValue(map)}`, 500);
}

/**
 * Returns the patched document; neither input is changed (the result may share unchanged parts with `original`). `schema` is the definition of the
 * document's kind (see `rootSchemaNode`); without one every list is replaced.
 */
export function applyStrategicMergePatch(original: Json, patch: Json, schema: TypedNode | undefined): JsonObject {
  if (!isObject(patch)) {
    const kind = Array.isArray(patch) ? 'array' : patch === null ? 'null' : typeof patch;
    throw new StrategicMergePatchError(
      `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
      400,
    );
  }
  return mergeMap(isObject(original) ? original : {}, copyJson(patch), schema);
}

/**
 * Merges `patch` (a private copy, consumed) into `live` (left unchanged): the result shares
 * the subtrees the patch does not touch with `live`, so a small patch of a large object
 * costs little.
 */
function mergeMap(live: JsonObject, patch: JsonObject, schema: TypedNode | undefined): JsonObject {
  if (DIRECTIVE in patch) {
    const directive = patch[DIRECTIVE];
    if (directive === 'replace') {
      delete patch[DIRECTIVE];
      return withoutDirectives(patch) as JsonObject;
    }
    if (directive === 'delete') return {};
    throw badPatchType(directive, patch);
  }
  const original = { ...live };
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, schema);
  for (const [patchKey, patchValue] of Object.entries(patch)) {
    const deleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    const key = deleteList ? directiveTarget(patchKey, DELETE_FROM_PRIMITIVE_LIST, badPrimitiveList) : patchKey;
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const child = fieldNode(schema, key);
    const current = original[key];
    if (current === undefined || current === null || kindOf(current) !== kindOf(patchValue)) {
      // A deletion list for a list the object does not have has nothing to delete; a map that
      // carries a directive is not taken at all (whatever the directive), as the reference
      // removes directives from a value it takes whole.
      if (deleteList) continue;
      if (isObject(patchValue) && DIRECTIVE in patchValue) delete original[key];
      else original[key] = withoutDirectives(patchValue);
      continue;
    }
    if (isObject(current)) {
      original[key] = patchStrategies(child).includes('replace')
        ? withoutDirectives(patchValue)
        : mergeMap(current, patchValue as JsonObject, child);
    } else if (Array.isArray(current)) {
      original[key] = mergeListField({
        key,
        original: current,
        patch: patchValue as Json[],
        schema: child,
        deleteList,
      });
    } else {
      original[key] = patchValue;
    }
  }
  return original;
}

function kindOf(value: Json): 'map' | 'list' | 'scalar' {
  return Array.isArray(value) ? 'list' : isObject(value) ? 'map' : 'scalar';
}

/**
 * A value the object did not have: taken as sent, minus nulls and the maps that carry `$patch`.
 * Other directive keys ($retainKeys, $setElementOrder/...) stay in it, as the reference's library
 * leaves them: they then decode as unknown fields, or as a map's keys.
 */
function withoutDirectives(value: Json): Json {
  if (Array.isArray(value)) {
    return value.filter((item) => !(isObject(item) && DIRECTIVE in item)).map(withoutDirectives);
  }
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null) continue;
    if (isObject(member) && DIRECTIVE in member) continue;
    out[key] = withoutDirectives(member);
  }
  return out;
}

/** `$retainKeys`: keys of `original` not listed go; every key the patch sets must be listed. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!(RETAIN_KEYS in patch)) return;
  const retained = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retained)) throw badRetainKeys();
  const keep = new Set(retained);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    // The reference's library calls this a bad format too (400), not a mismatch.
    if (!keep.has(key)) throw badRetainKeys();
  }
  for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
}

/**
 * Lists with a `$setElementOrder/<list>` directive: merged here, then put in that order, with
 * the library's checks in its order (the directive, the lists' types, the field, the patch
 * against the order, the items).
 */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: TypedNode | undefined): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw badArgType('[]interface {}', order);
    const key = directiveTarget(directiveKey, SET_ELEMENT_ORDER, badSetElementOrder);
    const live = original[key];
    const sent = key in patch ? patch[key] : undefined;
    if (live !== undefined && !Array.isArray(live)) throw badArgType('[]interface {}', live);
    if (key in patch && !Array.isArray(sent)) throw badArgType('[]interface {}', sent);
    const child = listFieldOf(schema, key);
    const mergeKey = patchMergeKey(child);
    checkOrderCoversPatch({ list: key, patchList: (sent as Json[] | undefined) ?? [], order, mergeKey });
    if (live === undefined && sent === undefined) continue;
    let merged: Json[];
    if (sent === undefined) merged = live as Json[];
    else if (live === undefined) merged = withoutDirectives(sent) as Json[];
    else merged = mergeListField({ key, original: live, patch: sent as Json[], schema: child, deleteList: false });
    const { named, others } = partitionByOrder({ list: key, merged, order, mergeKey });
    const kind = elementKindOf(key, [(live as Json[] | undefined) ?? [], (sent as Json[] | undefined) ?? []]);
    if (kind === undefined) throw new StrategicMergePatchError('no elements in any of the given slices', 500);
    if (kind === 'map') {
      checkMergeKeys(mergeKey, named, order);
      checkMergeKeys(mergeKey, others, (live as Json[] | undefined) ?? []);
    }
    original[key] = normalizeElementOrder({
      patchItems: named,
      serverOnly: others,
      patchOrder: order,
      liveOrder: (live as Json[] | undefined) ?? [],
      by: { mergeKey },
    });
    delete patch[key];
  }
}

/**
 * A list field: merged when its strategy is `merge`, otherwise replaced by the patch's list as
 * sent. The reference's library takes that list whole, its directives too (a `$patch: delete`
 * item of a list with no merge key stays an item, whose `$patch` then decodes as an unknown
 * field), where a list the object did not have loses them.
 */
function mergeListField(options: {
  key: string;
  original: Json[];
  patch: Json[];
  schema: TypedNode | undefined;
  deleteList: boolean;
}): Json[] {
  if (!patchStrategies(options.schema).includes('merge')) return options.patch;
  return mergeList(options);
}

function mergeList(options: {
  key: string;
  original: Json[];
  patch: Json[];
  schema: TypedNode | undefined;
  deleteList: boolean;
}): Json[] {
  const { schema, deleteList } = options;
  let original = options.original;
  let patch = options.patch;
  const kind = elementKindOf(options.key, [original, patch]);
  if (kind === undefined) return original;
  const mergeKey = kind === 'map' ? patchMergeKey(schema) : undefined;
  let merged: Json[];
  if (kind === 'scalar') {
    if (deleteList) {
      const remove = new Set(patch);
      return original.filter((item) => !remove.has(item));
    }
    merged = [...new Set([...original, ...patch])];
  } else {
    if (mergeKey === undefined) throw new StrategicMergePatchError('cannot merge lists without merge key', 500);
    ({ original, patch } = applyItemDirectives(original, patch as JsonObject[], mergeKey));
    merged = mergeItems(original as JsonObject[], patch as JsonObject[], mergeKey, itemNode(schema));
  }
  const by = { mergeKey };
  const { named, others } = partitionByPresence(merged, patch, by);
  return normalizeElementOrder({ patchItems: named, serverOnly: others, patchOrder: patch, liveOrder: original, by });
}

/** `{$patch: delete, <key>: v}` removes the live items with that key; `{$patch: replace}` makes the patch's items the list. */
function applyItemDirectives(
  original: Json[],
  patch: JsonObject[],
  mergeKey: string,
): { original: Json[]; patch: Json[] } {
  const plain: JsonObject[] = [];
  let replace = false;
  let remaining = original;
  for (const item of patch) {
    if (!(DIRECTIVE in item)) {
      plain.push(item);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === 'delete') {
      if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
      remaining = remaining.filter((live) => !isObject(live) || live[mergeKey] !== item[mergeKey]);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new StrategicMergePatchError('merging lists cannot yet be specified in the patch', 500);
    } else {
      throw badPatchType(directive, item);
    }
  }
  if (replace) return { original: plain.map(withoutDirectives), patch: [] };
  return { original: remaining, patch: plain };
}

function mergeItems(
  original: JsonObject[],
  patch: JsonObject[],
  mergeKey: string,
  schema: TypedNode | undefined,
): Json[] {
  const out: Json[] = [...original];
  for (const item of patch) {
    if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
    const at = out.findIndex((live) => isObject(live) && live[mergeKey] === item[mergeKey]);
    if (at >= 0) out[at] = mergeMap(out[at] as JsonObject, item, schema);
    else out.push(mergeMap({}, item, schema));
  }
  return out;
}
