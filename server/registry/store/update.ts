/**
 * Update: the one function every write to an existing object runs through (PUT, PATCH, apply,
 * status, scale, finalize, and the server's controllers). A guaranteed update: the storage reads
 * the current object, this computes the new one, and a lost race starts over on fresh state.
 * The steps of one attempt, in the reference's order (its registry store's Update):
 *
 *   1. the new object from the current one (the caller's: a body, a patch, an apply), in the
 *      version it is prepared in (scope.ts's preparedVersion) with that version's defaults,
 *      each owner reference a body (not a patch) sent twice kept once (with a warning)
 *   2. mutating admission (UPDATE), then owner references deduplicated again
 *   3. preconditions: a resourceVersion the object carries must be the current one, compared as
 *      numbers (409; one that is no number is a 400); none, or zero, is refused for kinds that
 *      take no unconditional update (422)
 *   4. system metadata kept from the stored object (uid when absent, creationTimestamp,
 *      deletion marks), then the strategy's prepareForUpdate / prepareForStatusUpdate, or
 *      finalize's own (the status is kept)
 *   5. the strategy's validateUpdate (422; a different uid is refused here, as immutable), its
 *      warnings (none for a refused update), then the kind's beginUpdate hook (a Service's cluster IPs and node ports; on a dry run it
 *      takes nothing)
 *   6. validating admission (UPDATE)
 *   7. managedFields: the write recorded as its manager's Update (apply brings its own),
 *      crediting it with the object as of step 1 (what it sent, defaulted), not what admission,
 *      the preparation or the hook changed
 *   8. storage, in the storage version; a dry run stops here. A terminating object left with
 *      no finalizer is removed instead of written (and the kind's afterDelete hook runs).
 *   9. the hook's finish: what it took is given back when the write failed, what the new
 *      object dropped when it was stored
 *
 * A missing object is a 404, unless the caller may create it (PUT of kinds that allow it,
 * apply): then the create's steps run (see prepareNewObject).
 */
import { ObjectError } from '../../../storage/errors';
import type { ObjectKey, Preconditions } from '../../../storage/objects/types';
import { objectResourceVersion } from '../../../storage/objects/resource-version';
import { copyJson } from '../../json/value';
import { invalid, notFound, objectModified } from '../../status/catalogue';
import { FieldPath, invalid as invalidField } from '../../status/field-errors';
import { admissionAttributes, type WriteRequest } from './admission';
import { prepareNewObject } from './create';
import { FINISH_NOTHING, type FinishWrite } from './hooks';
import { recordManagedFields } from './managed-fields';
import { dedupOwnerReferences, keepSystemMetadata, pendingFinalizers } from './object-meta';
import {
  groupResourceOf,
  preparedToServed,
  preparedToStored,
  preparedVersion,
  preparesInServedVersion,
  refusedGroupKind,
  toPreparedVersion,
  toServedVersion,
  writeContextOf,
  type StoreScope,
} from './scope';

import type { KubeObject } from '../../../api/objects';
import { parseGroupVersion, type GroupKind } from '../../../api/identity';
/** Which strategy methods prepare the write. */
export type WriteTarget = 'main' | 'status' | 'finalize';

export interface UpdateRequest extends WriteRequest {
  readonly key: ObjectKey;
  /**
   * The new object in the scope's version, from the current one (a private copy it may change);
   * `undefined` when the object is missing and the caller may create it.
   */
  readonly updatedObject: (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>;
  readonly target: WriteTarget;
  readonly manager: string;
  /**
   * Preconditions stated beside the object: a PUT body's uid (the reference takes it as one),
   * the resourceVersion of a Scale, which the parent object does not carry.
   */
  readonly preconditions?: Preconditions;
  readonly allowCreate?: boolean;
  /** Asked once the created object is validated: a write that may create needs `create` permission too. */
  readonly authorizeCreate?: () => Promise<void>;
  /**
   * The computed object already carries its managedFields (server-side apply writes its own):
   * recording this write as an Update on top would credit the defaults to a false manager.
   */
  readonly managedFieldsComputed?: boolean;
}

export interface UpdateResult {
  /** In the scope's version. */
  readonly object: KubeObject;
  readonly created: boolean;
  /** The write removed the object (its last finalizer went). */
  readonly deleted: boolean;
}

/**
 * Thrown inside the update function when the object must be removed rather than written: the
 * stored object to remove, and the updated one (as prepared) the request is answered with, as
 * the reference answers the update it made.
 */
class RemoveInstead extends Error {
  constructor(
    readonly current: KubeObject,
    readonly updated: KubeObject,
  ) {
    super('remove instead of update');
  }
}

const MAX_ATTEMPTS = 5;

/**
 * True when nothing holds a terminating object any longer: no finalizers, and no grace period
 * still running (a Pod's kubelet confirms its end with a deletion of grace 0, not an update).
 */
function shouldRemove(scope: StoreScope, object: KubeObject): boolean {
  const meta = object.metadata;
  return (
    meta.deletionTimestamp !== undefined &&
    (meta.deletionGracePeriodSeconds ?? 0) === 0 &&
    pendingFinalizers(scope.type, object).length === 0
  );
}

export async function updateObject(scope: StoreScope, request: UpdateRequest): Promise<UpdateResult> {
  const { key } = request;
  for (let attempt = 1; ; attempt++) {
    // What the kind's hook took for an attempt (its create, or its update) is held until the write is settled.
    let pending: FinishWrite | undefined;
    const settle = async (stored: boolean): Promise<void> => {
      const finish = pending;
      pending = undefined;
      await finish?.(stored);
    };
    try {
      const result = await scope.storage.update(
        key,
        async (current) => {
          await settle(false); // a lost race: the last attempt's create was not stored
          if (current === undefined) {
            if (!request.allowCreate) throw notFound(groupResourceOf(scope.type), key.name);
            const creating = await prepareNewObject(
              scope,
              request,
              await request.updatedObject(undefined),
              request.authorizeCreate ?? noCheck,
            );
            pending = creating.finish;
            const { object } = creating;
            if (!request.managedFieldsComputed)
              await recordManagedFields({
                scope,
                object,
                written: creating.written,
                manager: request.manager,
                subresource: request.subresource,
              });
            return await preparedToStored(scope, object);
          }
          const { object, finish } = await prepareUpdate(scope, request, current);
          pending = finish;
          if (shouldRemove(scope, object)) throw new RemoveInstead(current, object);
          return await preparedToStored(scope, object);
        },
        {
          preconditions: request.preconditions,
          allowCreate: request.allowCreate,
          dryRun: request.dryRun,
          deadline: request.deadline,
        },
      );
      await settle(true);
      return { object: await toServedVersion(scope, result.object), created: result.created, deleted: false };
    } catch (error) {
      await settle(false);
      if (!(error instanceof RemoveInstead)) throw error;
      try {
        const removed = await removeExactly(scope, key, error.current, request);
        await afterRemoval(scope, removed, request.dryRun);
        return { object: await preparedToServed(scope, error.updated), created: false, deleted: true };
      } catch (removeError) {
        // A write raced the removal: start over from fresh state unless the caller pinned a version.
        const raced =
          removeError instanceof ObjectError &&
          (removeError.reason === 'Conflict' || removeError.reason === 'NotFound');
        if (!raced || request.preconditions?.resourceVersion !== undefined || attempt >= MAX_ATTEMPTS)
          throw removeError;
      }
    }
  }
}

async function noCheck(): Promise<void> {}

/** The strategy's warnings for the part written; a namespace's finalize has none. */
function strategyWarnings(
  scope: StoreScope,
  request: UpdateRequest,
  object: KubeObject,
  current: KubeObject,
): string[] {
  const { strategy } = scope.type;
  const { target } = request;
  if (target === 'main') return strategy.warnings?.(object, current, writeContextOf(scope, request)) ?? [];
  return target === 'status' ? (strategy.statusWarnings?.(object, current) ?? []) : [];
}

/**
 * Steps 1-7 on an existing object (`stored`, as stored): the object to store, as prepared, and
 * the kind's hook's finish.
 */
async function prepareUpdate(
  scope: StoreScope,
  request: UpdateRequest,
  stored: KubeObject,
): Promise<{ object: KubeObject; finish: FinishWrite }> {
  const { strategy } = scope.type;
  const name = request.key.name;
  // 1. The caller's change, made on a copy: `current`, the old object as the write is prepared,
  // must stay the old state to compare with.
  const served = await toServedVersion(scope, stored);
  const current = preparesInServedVersion(scope) ? served : stored;
  const updated = await request.updatedObject(copyJson(served));
  const named = namedGroupKind(scope, updated);
  const object = await toPreparedVersion(scope, updated);
  strategy.applyDefaults?.(object, preparedVersion(scope));
  if (!request.patch) dedupOwnerReferences(object, request.warnings, false);
  // What the write's manager is credited with (step 7): the object as sent and defaulted, as the
  // reference records ownership before admission and its registry change it (the deletion marks
  // it sent, not those kept; no preparation's fields, no hook's).
  const written = request.managedFieldsComputed ? undefined : copyJson(object);
  // 2. Mutating admission.
  const attributes = admissionAttributes(scope, request, {
    operation: 'UPDATE',
    key: request.key,
    object,
    oldObject: current,
  });
  await scope.context.admission.admit(attributes);
  dedupOwnerReferences(object, request.warnings, true);
  // 3. The object's own resourceVersion is a precondition; none (or zero) means "whatever is current".
  const resourceVersion = objectResourceVersion(object.metadata.resourceVersion);
  if (resourceVersion !== 0n) {
    if (resourceVersion !== BigInt(current.metadata.resourceVersion ?? '0'))
      throw objectModified(groupResourceOf(scope.type), name);
  } else if (scope.type.requiresResourceVersionOnUpdate) {
    // The reference names the resource where a kind belongs here (`widgets.example.com`), and
    // the missing version as the number 0 it parsed.
    throw invalid({ group: scope.type.group, kind: scope.type.resource }, name, [
      invalidField(FieldPath.root('metadata', 'resourceVersion'), 0, 'must be specified for an update'),
    ]);
  }
  // 4. System metadata and the strategy's preparation.
  keepSystemMetadata(object, current);
  const context = writeContextOf(scope, request);
  if (request.target === 'status') strategy.prepareForStatusUpdate?.(object, current, context);
  else if (request.target === 'finalize') keepStatus(object, current);
  else strategy.prepareForUpdate?.(object, current, context);
  // 5. Validation, then the strategy's warnings: a refused update gets none of them.
  const errors =
    (request.target === 'status'
      ? strategy.validateStatusUpdate?.(object, current, context)
      : request.target === 'finalize'
        ? strategy.validateFinalizeUpdate?.(object, current, context)
        : strategy.validateUpdate?.(object, current, context)) ?? [];
  if (errors.length > 0) throw invalid(named, name, errors);
  for (const warning of strategyWarnings(scope, request, object, current)) request.warnings?.add(warning);
  // 5b. The kind's hook for the part written (a Service's cluster IPs and node ports on the main
  // object; a claim's admin-access check on its status).
  const hooks = scope.context.hooksFor?.(scope.type);
  const beginUpdate =
    request.target === 'main' ? hooks?.beginUpdate : request.target === 'status' ? hooks?.beginStatusUpdate : undefined;
  const finish = beginUpdate
    ? await beginUpdate(object, current, { dryRun: request.dryRun, user: request.user })
    : FINISH_NOTHING;
  try {
    // 6. Validating admission.
    await scope.context.admission.validate(attributes);
    // 7. Field ownership.
    if (!request.managedFieldsComputed) {
      await recordManagedFields({
        scope,
        object,
        written,
        previous: current,
        manager: request.manager,
        subresource: request.subresource,
      });
    }
  } catch (error) {
    await finish(false);
    throw error;
  }
  return { object, finish };
}

/**
 * The group and kind a refusal of the update names. A built-in kind's object is typed, and the
 * reference names its type's group, as a create's refusal does (an events.k8s.io Event is a core
 * Event). A custom resource names them itself, as the reference reads them off it before its
 * strategy prepares it: the kind's own but where its status write left another kind or group,
 * which its status strategy replaces by the stored ones.
 */
function namedGroupKind(scope: StoreScope, object: KubeObject): GroupKind {
  if (scope.type.custom !== true) return refusedGroupKind(scope);
  const groupVersion = typeof object.apiVersion === 'string' ? parseGroupVersion(object.apiVersion) : undefined;
  if (groupVersion === undefined || typeof object.kind !== 'string' || object.kind === '')
    return { group: scope.type.group, kind: scope.type.kind };
  return { group: groupVersion.group, kind: object.kind };
}

/** The kind's step after an object left storage (a Service gives back its addresses and ports). */
export async function afterRemoval(scope: StoreScope, removed: KubeObject, dryRun: boolean): Promise<void> {
  if (dryRun) return;
  await scope.context.hooksFor?.(scope.type)?.afterDelete?.(removed);
}

/**
 * PUT /finalize writes everything but the status, as the reference's finalize strategy keeps only
 * that: its spec (the finalizers) and its metadata, checked as an update's.
 */
function keepStatus(object: KubeObject, current: KubeObject): void {
  if (current.status === undefined) delete object.status;
  else object.status = copyJson(current.status);
}

/** Removes the object only if it is still exactly `current`. */
export function removeExactly(
  scope: StoreScope,
  key: ObjectKey,
  current: KubeObject,
  write: Pick<WriteRequest, 'dryRun' | 'deadline'>,
): Promise<KubeObject> {
  return scope.storage.delete(key, {
    preconditions: { uid: current.metadata.uid, resourceVersion: current.metadata.resourceVersion },
    dryRun: write.dryRun,
    deadline: write.deadline,
  });
}
