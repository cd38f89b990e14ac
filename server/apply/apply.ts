/**
 * Server-side apply of one configuration to one object, as the reference's field manager does
 * it, in this order:
 *   1. the configuration is merged into the live object (structured-merge.ts);
 *   2. the applier now owns exactly the fields its configuration sets (applied-fields.ts);
 *   3. fields its previous apply set and this one does not are removed unless someone else
 *      owns them (prune.ts);
 *   4. fields of other managers this changes are conflicts (409) unless `force`, which moves
 *      them to the applier; fields the write removed leave every manager;
 *   5. managedFields are written back in the reference's forms and order.
 * Before merging, a configuration of another kind, one carrying managedFields, or one with
 * fields the schema does not declare or values of the wrong type is refused, as the reference
 * refuses them.
 * A pure function of its inputs: storage, defaulting and validation stay with the handler.
 */
import { isDeepStrictEqual } from 'node:util';
import { metaTime, type KubeObject } from '../../api/objects';
import { changedFields, SERVER_OWNED_METADATA, withoutServerOwnedFields } from '../fieldmanager/field-set';
import { badRequest } from '../status/catalogue';
import { copyJson, goMarshal, isObject } from '../json/value';
import { appliedFieldSet } from './applied-fields';
import { compareObjects } from './compare';
import { applyConflict, sortConflicts, type FieldConflict } from './conflicts';
import { managerIdentity, sortManagedFields } from '../fieldmanager/managers';
import { fieldsV1Of, pathsOfFieldsV1, PathSet } from '../fieldmanager/path-set';
import { removeReleasedFields } from './prune';
import type { TypedNode } from './schema-node';
import { mergeConfiguration } from './structured-merge';
import { typedPatchError, typingErrors } from './typed-patch';

import type { ManagedFieldsEntry } from '../fieldmanager/managed-fields-entry';
/**
 * Which part of the object a write may own: all but the reference's reset fields of the
 * strategy behind the endpoint. The main resource of a kind with a status subresource does not
 * own status; other endpoints own all but the fields `allBut` names (each a path of field
 * names, `['status', 'certificate']`).
 */
export type OwnershipScope = 'whole-object' | 'all-but-status' | { readonly allBut: readonly (readonly string[])[] };

export interface ApplyRequest {
  /** The stored object in the request's version, with its managedFields; absent: apply creates. */
  readonly live: KubeObject | undefined;
  /** The parsed apply body. */
  readonly config: Record<string, unknown>;
  readonly manager: string;
  /** The request's group-version (`apps/v1`) and kind. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly subresource?: string;
  readonly force: boolean;
  readonly now: Date;
  /** The kind's definition (see rootSchemaNode); absent: untyped (maps granular, lists atomic). */
  readonly schema: TypedNode | undefined;
  readonly scope?: OwnershipScope;
  /**
   * The kind's empty object: the reference's first apply to an object nobody tracked records
   * the live object as an update from it, so fields at their zero values belong to no one.
   * Absent: every field of the live object counts.
   */
  readonly emptyObject?: unknown;
}

export interface ApplyResult {
  /**
   * The new object, managedFields set. Not yet defaulted or validated, and holding the nulls
   * the configuration set (see mergeConfiguration): read it into the kind's types (a null
   * member gone, a null map value the zero value) or, for a custom resource, default it.
   */
  readonly object: KubeObject;
  /** Whether anything besides managedFields differs from the live object (a null where nothing was counts). */
  readonly changed: boolean;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** The manager kubectl's server-side apply uses by default; the client-side apply interplay is for it alone. */
const KUBECTL = 'kubectl';
const BEFORE_FIRST_APPLY = 'before-first-apply';

interface ManagerState {
  readonly entry: ManagedFieldsEntry;
  /** The stored entry's members, to keep its FieldsV1 text when unchanged. */
  readonly original?: PathSet;
  set: PathSet;
  time?: string;
}

/** The fields no manager owns: identity and bookkeeping the server sets. */
const SERVER_OWNED = new PathSet([
  ['f:apiVersion'],
  ['f:kind'],
  ...SERVER_OWNED_METADATA.map((field) => ['f:metadata', `f:${field}`]),
]);

function withinScope(set: PathSet, scope: OwnershipScope): PathSet {
  const owned = set.minusSubtrees(SERVER_OWNED);
  if (scope === 'all-but-status') return owned.minusSubtrees(new PathSet([['f:status']]));
  if (typeof scope === 'object')
    return owned.minusSubtrees(new PathSet(scope.allBut.map((fields) => fields.map((field) => `f:${field}`))));
  return owned;
}

/** A view of the live object without its managedFields; it shares the rest and is only read. */
function withoutManagedFields(object: KubeObject | undefined): Record<string, unknown> {
  if (object === undefined) return {};
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** Rejects what the reference rejects before merging. */
function checkConfiguration(request: ApplyRequest): void {
  const { config } = request;
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const kind = typeof config.kind === 'string' ? config.kind : '';
  if (apiVersion !== request.apiVersion || kind !== request.kind) {
    const slash = apiVersion.lastIndexOf('/');
    const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
    const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
    throw badRequest(`invalid object type: ${group}/${version}, Kind=${kind}`);
  }
  const metadata = config.metadata as Record<string, unknown> | undefined;
  if (
    metadata !== undefined &&
    metadata !== null &&
    metadata.managedFields !== undefined &&
    metadata.managedFields !== null
  ) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const errors = typingErrors(config, request.schema);
  if (errors.length > 0) throw typedPatchError(config, errors);
}

function decodeManagers(request: ApplyRequest, liveBody: Record<string, unknown>): Map<string, ManagerState> {
  const managers = new Map<string, ManagerState>();
  const entries = (request.live?.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  for (const entry of entries) {
    const set = pathsOfFieldsV1(entry.fieldsV1);
    managers.set(managerIdentity(entry), { entry, original: set, set, time: entry.time });
  }
  // An object written while nobody tracked fields: what it holds belongs to a stand-in
  // manager, so the first apply conflicts where it would change those values.
  if (request.live !== undefined && managers.size === 0) {
    const fields = withoutServerOwnedFields(changedFields(request.emptyObject, liveBody, {}));
    const set = withinScope(pathsOfFieldsV1(fields), request.scope ?? 'whole-object');
    const entry: ManagedFieldsEntry = {
      manager: BEFORE_FIRST_APPLY,
      operation: 'Update',
      apiVersion: request.apiVersion,
    };
    if (!set.isEmpty()) managers.set(managerIdentity(entry), { entry, set, time: metaTime(request.now) });
  }
  return managers;
}

function encodeManagers(managers: ReadonlyMap<string, ManagerState>): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const state of managers.values()) {
    if (state.set.isEmpty()) continue;
    const { entry } = state;
    const unchanged = state.original !== undefined && state.original.equals(state.set) && entry.fieldsV1 !== undefined;
    entries.push({
      manager: entry.manager,
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      ...(state.time !== undefined ? { time: state.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: unchanged ? entry.fieldsV1 : fieldsV1Of(state.set),
      ...(entry.subresource ? { subresource: entry.subresource } : {}),
    });
  }
  return sortManagedFields(entries);
}

/** kubectl's server-side apply keeps a client-side apply annotation, when the object has one, in step. */
function syncLastApplied(request: ApplyRequest, object: KubeObject): void {
  const annotations = request.live?.metadata.annotations;
  if (request.manager !== KUBECTL || annotations?.[LAST_APPLIED] === undefined) return;
  const applied = copyJson(request.config) as { metadata?: { annotations?: Record<string, string> } };
  if (applied.metadata?.annotations !== undefined) {
    delete applied.metadata.annotations[LAST_APPLIED];
    if (Object.keys(applied.metadata.annotations).length === 0) delete applied.metadata.annotations;
  }
  // Written as the reference encodes the applied object: Go's JSON encoder, which ends with a newline.
  const lastApplied = `${goMarshal(applied)}\n`;
  object.metadata.annotations = { ...(object.metadata.annotations ?? {}), [LAST_APPLIED]: lastApplied };
}

/**
 * The fields kubectl's client-side apply set (its last-applied annotation) that still hold the
 * values it set: the reference lets kubectl's first server-side apply take them over without a
 * conflict. Undefined when the annotation is absent or unusable (then nothing is forgiven).
 */
function clientSideAppliedFields(request: ApplyRequest, liveBody: Record<string, unknown>): PathSet | undefined {
  const text = request.live?.metadata.annotations?.[LAST_APPLIED];
  if (!text) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied) || lastApplied.apiVersion !== request.apiVersion) return undefined;
  if (typingErrors(lastApplied, request.schema).length > 0) return undefined;
  // Fields whose live value differs from (or is missing against) the annotation were changed
  // since by someone else; those stay conflicts.
  const comparison = compareObjects(lastApplied, liveBody, request.schema);
  return appliedFieldSet(lastApplied, request.schema)
    .minus(comparison.modified)
    .minus(comparison.added)
    .minus(comparison.removed);
}

/**
 * The conflicts that stand. For the manager `kubectl` (and only it, so others can opt out by
 * their name), conflicts that all lie on client-side applied fields are no conflicts at all,
 * and the apply goes on as forced; otherwise those fields drop out of the reported ones.
 */
function withoutClientSideApplied(
  conflicts: readonly FieldConflict[],
  request: ApplyRequest,
  liveBody: Record<string, unknown>,
): readonly FieldConflict[] {
  if (conflicts.length === 0 || request.manager !== KUBECTL) return conflicts;
  const forgiven = clientSideAppliedFields(request, liveBody);
  return forgiven === undefined ? conflicts : conflicts.filter((conflict) => !forgiven.has(conflict.path));
}

export function serverSideApply(request: ApplyRequest): ApplyResult {
  checkConfiguration(request);
  const { schema, now } = request;
  const scope = request.scope ?? 'whole-object';
  const liveBody = withoutManagedFields(request.live);
  const managers = decodeManagers(request, liveBody);

  const applierEntry: ManagedFieldsEntry = {
    manager: request.manager,
    operation: 'Apply',
    apiVersion: request.apiVersion,
    subresource: request.subresource,
  };
  const applierId = managerIdentity(applierEntry);
  const previous = managers.get(applierId);
  const lastSet = previous?.set ?? new PathSet();
  const appliedSet = withinScope(appliedFieldSet(request.config, schema), scope);

  // Merged from a copy: the merge shares what the configuration leaves alone with the live
  // object, and the removals below must not reach the live object it is compared with.
  const merged = (mergeConfiguration(copyJson(liveBody), request.config, schema) ?? {}) as Record<string, unknown>;
  const owned = [...managers.entries()].reduce(
    (all, [id, state]) => (id === applierId ? all : all.union(state.set)),
    appliedSet,
  );
  const settleEmptied = removeReleasedFields({ object: merged, released: lastSet.minus(appliedSet), owned, schema });

  const comparison = compareObjects(liveBody, merged, schema);
  const changedSet = withinScope(comparison.modified.union(comparison.added), scope);
  const removedSet = withinScope(comparison.removed, scope);
  const conflicts: FieldConflict[] = [];
  for (const [id, state] of managers) {
    if (id === applierId) continue;
    for (const path of state.set.intersect(changedSet).paths()) conflicts.push({ manager: id, path });
  }
  const unforgiven = request.force ? [] : withoutClientSideApplied(conflicts, request, liveBody);
  if (unforgiven.length > 0) throw applyConflict(sortConflicts(unforgiven));
  for (const [id, state] of managers) {
    if (id === applierId) continue;
    state.set = state.set.minus(changedSet).minus(removedSet);
  }

  // The reference stamps the applier's time only when the object changed (a null where nothing
  // was counts): an apply that changes nothing keeps the time it had, or has none.
  const changed = !isDeepStrictEqual(liveBody, merged);
  settleEmptied();
  managers.set(applierId, {
    entry: applierEntry,
    set: appliedSet,
    time: changed ? metaTime(now) : previous?.time,
  });

  const object = merged as KubeObject;
  if (typeof object.metadata !== 'object' || object.metadata === null) object.metadata = {};
  syncLastApplied(request, object);
  setManagedFields(object, encodeManagers(managers), request.live);
  return { object, changed };
}

/**
 * Puts the entries where the live object keeps them: storage compares bytes, so an apply that
 * changes nothing must produce the same key order to be the no-op it is.
 */
function setManagedFields(object: KubeObject, entries: ManagedFieldsEntry[], live: KubeObject | undefined): void {
  const metadata = object.metadata as Record<string, unknown>;
  delete metadata.managedFields;
  if (entries.length === 0) return;
  const liveKeys = Object.keys(live?.metadata ?? {});
  const position = liveKeys.indexOf('managedFields');
  if (position < 0) {
    metadata.managedFields = entries;
    return;
  }
  const before = new Set(liveKeys.slice(0, position));
  const members = Object.entries(metadata);
  object.metadata = Object.fromEntries([
    ...members.filter(([key]) => before.has(key)),
    ['managedFields', entries],
    ...members.filter(([key]) => !before.has(key)),
  ]);
}
