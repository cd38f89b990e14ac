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
import { fieldNode, itemNode, patchMergeKey, patchStrategies, type TypedNode } from '../apply/schema-node';
import { indexIn, normalizeElementOrder, partitionByPresence } from './strategic/element-order';

type Json = unknown;
type JsonObject = Record<string, Json>;

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

/** A patch the reference rejects; `code` is the status it answers with. */
export class StrategicMergePatchError extends Error {
  constructor(
    message: string,
    readonly code: 400 | 422 | 500,
  ) {
    super(message);
  }
}

const badRetainKeys = () => new StrategicMergePatchError('invalid patch format of retainKeys', 400);
const badSetElementOrder = () => new StrategicMergePatchError('invalid patch format of setElementOrder list', 400);
const noListOfLists = () => new StrategicMergePatchError('lists of lists are not supported', 422);

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Go's `%v` of a map, for the reference's messages that print one. */
function goMap(value: JsonObject): string {
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${key}:${isObject(value[key]) ? goMap(value[key] as JsonObject) : String(value[key])}`);
  return `map[${entries.join(' ')}]`;
}

function noMergeKey(item: JsonObject, mergeKey: string): StrategicMergePatchError {
  return new StrategicMergePatchError(`map: ${goMap(item)} does not contain declared merge key: ${mergeKey}`, 500);
}

function badPatchType(directive: Json, map: JsonObject): StrategicMergePatchError {
  return new StrategicMergePatchError(`unknown patch type: ${String(directive)} in map: ${goMap(map)}`, 500);
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
    const key = deleteList ? patchKey.slice(DELETE_FROM_PRIMITIVE_LIST.length) : patchKey;
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
      original[key] = mergeListField({ original: current, patch: patchValue as Json[], schema: child, deleteList });
    } else {
      original[key] = patchValue;
    }
  }
  return original;
}

function kindOf(value: Json): 'map' | 'list' | 'scalar' {
  return Array.isArray(value) ? 'list' : isObject(value) ? 'map' : 'scalar';
}

/** A value the object did not have: taken as sent, minus nulls and directive-bearing items. */
function withoutDirectives(value: Json): Json {
  if (Array.isArray(value)) {
    return value.filter((item) => !(isObject(item) && DIRECTIVE in item)).map(withoutDirectives);
  }
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null || key.startsWith('$')) continue;
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

/** Lists with a `$setElementOrder/<list>` directive: merged here, then put in that order. */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: TypedNode | undefined): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    const key = directiveKey.slice(SET_ELEMENT_ORDER.length);
    if (key === '' || !Array.isArray(order)) throw badSetElementOrder();
    const live = original[key];
    const sent = patch[key];
    if ((live !== undefined && !Array.isArray(live)) || (sent !== undefined && !Array.isArray(sent)))
      throw badSetElementOrder();
    if (live === undefined && sent === undefined) continue;
    const child = fieldNode(schema, key);
    const mergeKey = patchMergeKey(child);
    checkOrderCoversPatch(sent ?? [], order, mergeKey);
    let merged: Json[];
    if (sent === undefined) merged = live as Json[];
    else if (live === undefined) merged = withoutDirectives(sent) as Json[];
    else merged = mergeListField({ original: live, patch: sent, schema: child, deleteList: false });
    const by = { mergeKey };
    const { named, others } = partitionByPresence(merged, order, by);
    original[key] = normalizeElementOrder({
      patchItems: named,
      serverOnly: others,
      patchOrder: order,
      liveOrder: live ?? [],
      by,
    });
    delete patch[key];
  }
}

/** Every item the patch sets (deletions aside) must appear in `$setElementOrder`, in the same relative order. */
function checkOrderCoversPatch(patchList: readonly Json[], order: readonly Json[], mergeKey: string | undefined): void {
  const items = patchList.filter((item) => !(isObject(item) && DIRECTIVE in item));
  let p = 0;
  for (let o = 0; p < items.length && o < order.length; o++) {
    if (indexIn([order[o]], items[p], { mergeKey }) === 0) p++;
  }
  if (p < items.length) {
    throw new StrategicMergePatchError(
      `the order in patch list:\n${JSON.stringify(patchList)}\n doesn't match $setElementOrder list:\n${JSON.stringify(order)}`,
      500,
    );
  }
}

/** A list field: merged when its strategy is `merge`, otherwise replaced by the patch's list. */
function mergeListField(options: {
  original: Json[];
  patch: Json[];
  schema: TypedNode | undefined;
  deleteList: boolean;
}): Json[] {
  if (!patchStrategies(options.schema).includes('merge')) return withoutDirectives(options.patch) as Json[];
  return mergeList(options);
}

function elementKind(original: readonly Json[], patch: readonly Json[]): 'map' | 'scalar' | undefined {
  let kind: 'map' | 'scalar' | undefined;
  for (const item of [...original, ...patch]) {
    if (Array.isArray(item)) throw noListOfLists();
    const next = isObject(item) ? 'map' : 'scalar';
    if (kind !== undefined && kind !== next) throw new StrategicMergePatchError('mismatched types in list', 500);
    kind = next;
  }
  return kind;
}

function mergeList(options: {
  original: Json[];
  patch: Json[];
  schema: TypedNode | undefined;
  deleteList: boolean;
}): Json[] {
  const { schema, deleteList } = options;
  let original = options.original;
  let patch = options.patch;
  const kind = elementKind(original, patch);
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
