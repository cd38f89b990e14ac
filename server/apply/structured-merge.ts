/**
 * Merges an apply configuration into the live object as the reference's structured merge
 * does: granular maps member by member, granular lists item by item (matched by key or
 * value), atomic values replaced. A null in the configuration is a value like any other where
 * it replaces one (a scalar, an atomic value, an empty or absent container), and the result
 * holds it, for the caller to read as Go's conversion does; over a granular map or list that
 * holds something it merges nothing, so the live members or items stay.
 * Item order: the configuration's items in its order, live-only items kept where they stood.
 */
import { copyJson, isEmptyContainer, isObject } from '../json/value';
import { isGranularList, itemElement } from './list-items';
import { fieldNode, isAtomicMap, itemNode, listTypeOf, type TypedNode } from './schema-node';

/** Returns a new value; `live` and `config` are not changed. Undefined means "absent". */
export function mergeConfiguration(live: unknown, config: unknown, schema: TypedNode | undefined): unknown {
  if (config === undefined) return live;
  if (config === null) return holdsGranularMembers(live, schema) ? copyJson(live) : null;
  if (isObject(config) && !isAtomicMap(schema)) {
    const out: Record<string, unknown> = isObject(live) ? { ...live } : {};
    for (const [key, value] of Object.entries(config)) {
      const merged = mergeConfiguration(out[key], value, fieldNode(schema, key));
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    }
    return out;
  }
  if (isGranularList(config, schema)) return mergeLists(Array.isArray(live) ? live : [], config, schema);
  return copyJson(config);
}

/** A non-empty map or list the schema merges member by member or item by item. */
function holdsGranularMembers(live: unknown, schema: TypedNode | undefined): boolean {
  if (isEmptyContainer(live)) return false;
  if (isObject(live)) return !isAtomicMap(schema);
  return Array.isArray(live) && listTypeOf(schema) !== 'atomic';
}

function mergeLists(live: readonly unknown[], config: readonly unknown[], schema: TypedNode | undefined): unknown[] {
  const items = itemNode(schema);
  const liveElements = live.map((item) => itemElement(item, schema));
  const configElements = config.map((item) => itemElement(item, schema));
  const liveByElement = new Map(liveElements.map((element, i) => [element, live[i]] as const));
  const configByElement = new Map(configElements.map((element, i) => [element, config[i]] as const));
  // Items both lists hold, in the configuration's order: the order shared items come out in.
  const shared = configElements.filter((element) => liveByElement.has(element));
  let nextShared = shared.shift();
  const merged = new Set<string>();
  const out: unknown[] = [];
  const push = (value: unknown) => {
    if (value !== undefined) out.push(value);
  };
  let l = 0;
  let r = 0;
  while (l < live.length || r < config.length) {
    if (l < live.length && r < config.length) {
      const element = liveElements[l];
      if (element === configElements[r]) {
        merged.add(element);
        push(mergeConfiguration(live[l], config[r], items));
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      // A shared item that comes later in the configuration: wait for its turn there.
      if (configByElement.has(element) && nextShared !== undefined && nextShared !== element) {
        l++;
        continue;
      }
    }
    if (l < live.length) {
      const element = liveElements[l];
      if (!configByElement.has(element)) {
        push(copyJson(live[l]));
        l++;
        continue;
      }
      if (merged.has(element)) {
        l++;
        continue;
      }
    }
    if (r < config.length) {
      const element = configElements[r];
      merged.add(element);
      push(mergeConfiguration(liveByElement.get(element), config[r], items));
      r++;
      if (nextShared === element) nextShared = shared.shift();
    }
  }
  return out;
}
