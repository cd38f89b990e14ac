/**
 * The fields an apply configuration sets, as the reference counts them: every scalar, every
 * atomic list or map, every item of a granular list (the item itself and its fields), and a
 * map member that is null, empty, or not a declared field.
 */
import { FieldPath, PathSet } from '../fieldmanager/path-set';
import { isObject } from '../json/value';
import { isGranularList, itemElement } from './list-items';
import { fieldNode, isAtomicMap, isDeclaredField, itemNode, type TypedNode } from './schema-node';

export function appliedFieldSet(config: unknown, schema: TypedNode | undefined): PathSet {
  const out = new PathSet();
  collect(config, schema, [], out);
  return out;
}

function collect(value: unknown, schema: TypedNode | undefined, path: FieldPath, out: PathSet): void {
  if (isObject(value) && !isAtomicMap(schema)) {
    for (const [key, member] of Object.entries(value)) {
      const memberPath = [...path, `f:${key}`];
      if (member !== null) collect(member, fieldNode(schema, key), memberPath, out);
      const empty = member === null || (isObject(member) && Object.keys(member).length === 0);
      if (empty || !isDeclaredField(schema, key)) out.add(memberPath);
    }
    return;
  }
  if (isGranularList(value, schema)) {
    const items = itemNode(schema);
    for (const item of value) {
      const itemPath = [...path, itemElement(item, schema)];
      collect(item, items, itemPath, out);
      out.add(itemPath);
    }
    return;
  }
  if (path.length > 0) out.add(path);
}
