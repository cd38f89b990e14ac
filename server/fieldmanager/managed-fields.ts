/**
 * managedFields for writes that are not apply (create, update, non-apply patch): the writer's
 * `Update` entry gains the fields it changed, every other manager loses them, fields the write
 * removed leave every set, and entries left empty disappear, as the reference's field manager
 * does. The request's manager is `fieldManager`, else the User-Agent's program name.
 */
import { managerIdentity, sortManagedFields } from './managers';
import { compareElements } from './path-set';
import { capUpdateManagers } from './cap-updaters';
import {
  changedFields,
  difference,
  isEmptySet,
  union,
  withoutServerOwnedFields,
  type FieldSet,
  withoutRemovedFields,
  type SchemaContext,
  UntypedObjectError,
} from './field-set';
import { zeroObject } from './zero-object';
import type { Definitions, SchemaNode } from '../validation/decode';
import { decodeManagedFields, type ManagedFieldsEntry } from './managed-fields-entry';
import { metaTime } from '../../api/objects';

/**
 * The reference takes the User-Agent up to its first `/` (`kubectl/v1.33.0 (linux/amd64) ...` →
 * `kubectl`), and names a request without one (or with an empty prefix) `unknown`.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  return (userAgent ?? '').split('/')[0] || 'unknown';
}

export interface ManagedUpdate {
  /** The stored object before the write (its managedFields are ignored); absent on create. */
  readonly previous?: unknown;
  /** The entries the write starts from: the stored ones, or those the request set. */
  readonly managedFields: readonly ManagedFieldsEntry[];
  /** The object about to be stored (its managedFields are ignored). */
  readonly next: unknown;
  readonly manager: string;
  /** `apiVersion` of the request (`apps/v1`). */
  readonly apiVersion: string;
  readonly subresource?: string;
  /**
   * Fields the write never owns, each a path of field names (the store's reset fields): nobody
   * gains them, nobody loses them, and the writer's own entry drops them.
   */
  readonly ignored?: readonly (readonly string[])[];
  readonly now: Date;
  readonly schema: SchemaContext;
}

function sameEntry(entry: ManagedFieldsEntry, update: ManagedUpdate): boolean {
  return (
    entry.manager === update.manager &&
    entry.operation === 'Update' &&
    entry.apiVersion === update.apiVersion &&
    (entry.subresource ?? '') === (update.subresource ?? '')
  );
}

/** Each kind's empty object, by definitions and kind, built once: the schemas never change. */
const emptyObjects = new WeakMap<Definitions, WeakMap<SchemaNode, unknown>>();

/** What a create compares against: the kind's empty object (see zero-object.ts); untyped kinds start from nothing. */
export function emptyObjectOf(schema: SchemaContext): unknown {
  const { definitions } = schema;
  if (definitions === undefined || schema.schema === undefined) return {};
  let byKind = emptyObjects.get(definitions);
  if (byKind === undefined) {
    byKind = new WeakMap();
    emptyObjects.set(definitions, byKind);
  }
  let empty = byKind.get(schema.schema.node);
  if (empty === undefined) {
    empty = deepFreeze(zeroObject(definitions, schema.schema));
    byKind.set(schema.schema.node, empty);
  }
  return empty;
}

/** Shared between writes, so no write may change it by mistake. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * A field set without the subtrees `ignored` names; a member left with nothing of its own is
 * dropped too, as it held only what was ignored. Only the nodes along each path are copied:
 * the rest is shared with `set`, which may be a stored object's managedFields (field sets are
 * never changed in place, field-set.ts).
 */
function withoutIgnored(set: FieldSet, ignored: readonly (readonly string[])[] | undefined): FieldSet {
  if (ignored === undefined) return set;
  let result = set;
  for (const path of ignored) result = withoutPath(result, path);
  return result;
}

/** `set` without the member at `path`, when every node above it is there; the nodes it leaves empty go too. */
function withoutPath(set: FieldSet, path: readonly string[]): FieldSet {
  const parents: FieldSet[] = [set];
  for (const name of path.slice(0, -1)) {
    const child = parents[parents.length - 1][`f:${name}`];
    if (child === undefined) return set;
    parents.push(child);
  }
  // From the deepest parent up: each node with its new child, or without it once that is empty.
  let replaced = withoutMember(parents[parents.length - 1], `f:${path[path.length - 1]}`);
  if (replaced === parents[parents.length - 1] && !isEmptySet(replaced)) return set;
  for (let depth = parents.length - 1; depth > 0; depth--) {
    const key = `f:${path[depth - 1]}`;
    replaced = isEmptySet(replaced)
      ? withoutMember(parents[depth - 1], key)
      : { ...parents[depth - 1], [key]: replaced };
  }
  return replaced;
}

function withoutMember(node: FieldSet, key: string): FieldSet {
  if (!(key in node)) return node;
  const { [key]: _removed, ...rest } = node;
  return rest;
}

/** The managedFields to store after a non-apply write, at most ten updaters, in the reference's order. */
export function managedFieldsAfterUpdate(update: ManagedUpdate): ManagedFieldsEntry[] {
  // An object nobody owns any field of is no longer tracked: the reference's update records
  // nothing on it (its skip-non-applied step), a reset's included, until an apply starts over.
  if (update.previous !== undefined && update.managedFields.length === 0) return [];
  const objects = { previous: update.previous ?? emptyObjectOf(update.schema), next: update.next };
  let found: FieldSet;
  try {
    found = changedFields(objects.previous, objects.next, update.schema);
  } catch (error) {
    if (error instanceof UntypedObjectError) return [];
    throw error;
  }
  const changed = withoutIgnored(withoutServerOwnedFields(found), update.ignored);
  const entries: ManagedFieldsEntry[] = [];
  let own: ManagedFieldsEntry | undefined;
  for (const entry of update.managedFields) {
    if (sameEntry(entry, update)) {
      own = entry;
      continue;
    }
    const kept = withoutRemovedFields(
      difference(entry.fieldsV1 ?? {}, changed),
      objects,
      update.schema,
      compareElements,
    );
    if (kept !== undefined) entries.push({ ...entry, fieldsV1: kept });
  }
  // The sets come out in the reference's order (`.` first, then fields, keys, values, indexes),
  // as it serializes them.
  const ownFields = withoutRemovedFields(
    union(withoutIgnored(own?.fieldsV1 ?? {}, update.ignored), changed),
    objects,
    update.schema,
    compareElements,
  );
  if (ownFields !== undefined) {
    const touched = !isEmptySet(changed);
    entries.push({
      manager: update.manager,
      operation: 'Update',
      apiVersion: update.apiVersion,
      time: touched || own?.time === undefined ? metaTime(update.now) : own.time,
      fieldsType: 'FieldsV1',
      fieldsV1: ownFields,
      ...(update.subresource ? { subresource: update.subresource } : {}),
    });
  }
  return sortManagedFields(capUpdateManagers(entries));
}

/**
 * A write's own managedFields, as the reference's field manager picks them: an empty list, or
 * one holding one empty entry, resets them (an update then leaves the object untracked); entries
 * that decode replace the stored ones, the last of a manager's counting (the reference reads
 * them into a map by manager); none, or any that does not decode, keep the stored ones, so a
 * client that does not know managedFields cannot corrupt them. (The stored ones are this
 * server's own writing, or the reference's, and are not decoded again.)
 */
export function requestedManagedFields(
  sent: unknown,
  stored: readonly ManagedFieldsEntry[] | undefined,
): readonly ManagedFieldsEntry[] {
  if (isReset(sent)) return [];
  const decoded = decodeManagedFields(sent);
  if (decoded !== undefined && decoded.length > 0) return lastOfEachManager(decoded);
  return stored ?? [];
}

function isReset(sent: unknown): boolean {
  if (!Array.isArray(sent)) return false;
  if (sent.length === 0) return true;
  const [only] = sent as unknown[];
  return sent.length === 1 && typeof only === 'object' && only !== null && Object.keys(only).length === 0;
}

function lastOfEachManager(entries: readonly ManagedFieldsEntry[]): readonly ManagedFieldsEntry[] {
  const byManager = new Map(entries.map((entry) => [managerIdentity(entry), entry] as const));
  return byManager.size === entries.length ? entries : [...byManager.values()];
}
