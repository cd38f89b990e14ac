/**
 * What changed between two versions of an object, as field paths: added (only in the new),
 * modified (a scalar or atomic value that differs) and removed (only in the old). Granular maps
 * and lists are walked member by member; a map or list item that appears or disappears is
 * itself added or removed along with its fields. A null is a value, as in the reference's
 * comparison: a map that became null lost its members but is no removed field itself, and two
 * containers that are each empty or null compare as values.
 */
import { isDeepStrictEqual } from 'node:util';
import { FieldPath, PathSet } from '../fieldmanager/path-set';
import { isEmptyContainer, isObject } from '../json/value';
import { isGranularList, itemElement } from './list-items';
import { fieldNode, isAtomicMap, itemNode, type TypedNode } from './schema-node';

export interface Comparison {
  readonly added: PathSet;
  readonly modified: PathSet;
  readonly removed: PathSet;
}

export function compareObjects(previous: unknown, next: unknown, schema: TypedNode | undefined): Comparison {
  const comparison = { added: new PathSet(), modified: new PathSet(), removed: new PathSet() };
  walk(previous, next, schema, [], comparison);
  return comparison;
}

/** Absent, null, or a map or list without members. */
function holdsNothing(value: unknown): boolean {
  return value === undefined || value === null || isEmptyContainer(value);
}

function walk(left: unknown, right: unknown, schema: TypedNode | undefined, path: FieldPath, out: Comparison): void {
  if (left === undefined && right === undefined) return;
  const bothEmpty = holdsNothing(left) && holdsNothing(right);
  const mapLike = (value: unknown) => value === undefined || value === null || isObject(value);
  if (!bothEmpty && (isObject(left) || isObject(right)) && mapLike(left) && mapLike(right) && !isAtomicMap(schema)) {
    if (path.length > 0) markPresence(left, right, path, out);
    const before = (left ?? {}) as Record<string, unknown>;
    const after = (right ?? {}) as Record<string, unknown>;
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      walk(before[key], after[key], fieldNode(schema, key), [...path, `f:${key}`], out);
    }
    return;
  }
  const listLike = (value: unknown) => value === undefined || value === null || isGranularList(value, schema);
  if (!bothEmpty && (Array.isArray(left) || Array.isArray(right)) && listLike(left) && listLike(right)) {
    const items = itemNode(schema);
    const before = byElement((left ?? []) as unknown[], schema);
    const after = byElement((right ?? []) as unknown[], schema);
    for (const element of new Set([...before.keys(), ...after.keys()])) {
      const itemPath = [...path, element];
      markPresence(before.get(element), after.get(element), itemPath, out);
      walk(before.get(element), after.get(element), items, itemPath, out);
    }
    return;
  }
  if (left === undefined) out.added.add(path);
  else if (right === undefined) out.removed.add(path);
  else if (!isDeepStrictEqual(left, right)) out.modified.add(path);
}

function markPresence(left: unknown, right: unknown, path: FieldPath, out: Comparison): void {
  if (left === undefined) out.added.add(path);
  else if (right === undefined) out.removed.add(path);
}

function byElement(list: readonly unknown[], schema: TypedNode | undefined): Map<string, unknown> {
  return new Map(list.map((item) => [itemElement(item, schema), item] as const));
}
