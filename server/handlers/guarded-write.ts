/**
 * The update path every non-create write takes (PUT, PATCH, status, scale, finalize, and the
 * first phase of DELETE): read-modify-write through the storage's guaranteed update, with the
 * strategy's preparation and validation inside, and removal instead of an update when the
 * write leaves a terminating object with nothing holding it.
 */
import type { KubeObject, ObjectKey, Preconditions } from '../../storage/objects/types';
import { ObjectError } from '../../storage/errors';
import { notFound } from '../status/catalogue';
import { keepSystemMetadata, fillCreateMetadata, pendingFinalizers } from './object-meta';
import { groupResourceOf, toServedVersion, toStorageVersion, whenConverted, type Converted, type HandlerScope } from './scope';
import { invalidObject, recordManagedFields } from './write-steps';
import { admit } from './admit';
import { requestedManagedFields, type ManagedFieldsEntry } from '../fieldmanager/managed-fields';
import type { UserInfo } from '../authn/types';
import { copyJson } from '../apply/json-value';

/** Which strategy methods prepare the write. */
export type WriteTarget = 'main' | 'status' | 'finalize';

export interface GuardedWrite {
  readonly scope: HandlerScope;
  readonly key: ObjectKey;
  /** The new object in the request's version, from the current one (a private copy it may change). */
  readonly compute: (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>;
  readonly target: WriteTarget;
  readonly manager: string;
  /** Who writes, for admission. */
  readonly user: UserInfo;
  readonly subresource?: string;
  readonly preconditions?: Preconditions;
  readonly allowCreate?: boolean;
  /**
   * Asked before a create's admission, once the object is prepared: a write that may create
   * (apply) needs the caller's `create` permission besides the request's own verb.
   */
  readonly authorizeCreate?: () => Promise<void>;
  /**
   * The computed object already carries its managedFields (server-side apply writes its own):
   * recording this write as an Update on top would credit the defaults to a false manager.
   */
  readonly managedFieldsComputed?: boolean;
  readonly dryRun: boolean;
}

export interface GuardedWriteResult {
  /** In the request's version. */
  readonly object: KubeObject;
  readonly created: boolean;
  /** The write removed the object (its last finalizer went). */
  readonly deleted: boolean;
  readonly warnings: readonly string[];
}

/** Thrown inside the update function when the object must be removed rather than written. */
class RemoveInstead extends Error {
  constructor(readonly current: KubeObject) {
    super('remove instead of update');
  }
}

const MAX_ATTEMPTS = 5;

/** True when nothing holds a terminating object any longer. */
export function shouldRemove(scope: HandlerScope, object: KubeObject): boolean {
  return object.metadata.deletionTimestamp !== undefined && pendingFinalizers(scope.type, object).length === 0;
}

function prepareUpdate(scope: HandlerScope, next: KubeObject, current: KubeObject, target: WriteTarget): Converted<KubeObject> {
  return whenConverted(toStorageVersion(scope, next), (object) => prepareStoredUpdate(scope, object, current, target));
}

function prepareStoredUpdate(scope: HandlerScope, object: KubeObject, current: KubeObject, target: WriteTarget): KubeObject {
  const { strategy } = scope.type;
  strategy.applyDefaults?.(object, scope.type.storageVersion);
  keepSystemMetadata(object, current);
  if (target === 'status') strategy.prepareForStatusUpdate?.(object, current);
  else if (target === 'finalize') keepAllButSpecFinalizers(object, current);
  else strategy.prepareForUpdate?.(object, current);
  const errors = strategy.validateUpdate?.(object, current) ?? [];
  if (errors.length > 0) throw invalidObject(scope, current.metadata.name ?? '', errors);
  return object;
}

/** PUT /finalize changes spec.finalizers and nothing else. */
function keepAllButSpecFinalizers(object: KubeObject, current: KubeObject): void {
  const finalizers = (object.spec as { finalizers?: unknown } | undefined)?.finalizers;
  for (const key of Object.keys(object)) if (key !== 'apiVersion' && key !== 'kind') delete object[key];
  Object.assign(object, copyJson(current));
  object.spec = { ...((current.spec as object | undefined) ?? {}), finalizers };
  if (finalizers === undefined) delete (object.spec as { finalizers?: unknown }).finalizers;
}

export function prepareCreate(scope: HandlerScope, next: KubeObject): Converted<KubeObject> {
  return whenConverted(toStorageVersion(scope, next), (object) => prepareStoredCreate(scope, object));
}

function prepareStoredCreate(scope: HandlerScope, object: KubeObject): KubeObject {
  const { strategy } = scope.type;
  strategy.applyDefaults?.(object, scope.type.storageVersion);
  fillCreateMetadata(object, scope.context.now());
  strategy.prepareForCreate?.(object);
  const errors = strategy.validate?.(object) ?? [];
  if (errors.length > 0) throw invalidObject(scope, object.metadata.name ?? '', errors);
  return object;
}

/**
 * The stored object as ownership is counted from. A write sending `[{}]` clears every entry
 * first, so it owns what it changed against the stored object, and no one else owns anything
 * (a subresource's request cannot set managedFields, so neither can it reset them).
 */
function ownershipBefore(object: KubeObject, current: KubeObject, subresource: string | undefined): KubeObject {
  const stored = current.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  if (subresource || !requestedManagedFields(object.metadata.managedFields, stored).reset) return current;
  delete object.metadata.managedFields;
  return { ...current, metadata: { ...current.metadata, managedFields: [] } };
}

export async function guardedWrite(write: GuardedWrite): Promise<GuardedWriteResult> {
  const { scope, key } = write;
  for (let attempt = 1; ; attempt++) {
    let warnings: string[] = [];
    try {
      const result = await scope.storage.update(
        key,
        async (current) => {
          if (current === undefined) {
            if (!write.allowCreate) throw notFound(groupResourceOf(scope.type), key.name);
            const object = await prepareCreate(scope, await write.compute(undefined));
            await write.authorizeCreate?.();
            await admit(scope, { operation: 'CREATE', user: write.user, key, subresource: write.subresource, object, dryRun: write.dryRun });
            if (!write.managedFieldsComputed) recordManagedFields({ scope, object, manager: write.manager, subresource: write.subresource });
            warnings = scope.type.strategy.warnings?.(object, undefined) ?? [];
            return object;
          }
          // compute may change what it gets, and `current` must stay the old state to compare with.
          const next = await write.compute(await toServedVersion(scope, copyJson(current)));
          const object = await prepareUpdate(scope, next, current, write.target);
          await admit(scope, { operation: 'UPDATE', user: write.user, key, subresource: write.subresource, object, oldObject: current, dryRun: write.dryRun });
          if (!write.managedFieldsComputed) {
            recordManagedFields({ scope, object, previous: ownershipBefore(object, current, write.subresource), manager: write.manager, subresource: write.subresource });
          }
          warnings = scope.type.strategy.warnings?.(object, current) ?? [];
          if (shouldRemove(scope, object)) throw new RemoveInstead(current);
          return object;
        },
        { preconditions: write.preconditions, allowCreate: write.allowCreate, dryRun: write.dryRun },
      );
      return { object: await toServedVersion(scope, result.object), created: result.created, deleted: false, warnings };
    } catch (error) {
      if (!(error instanceof RemoveInstead)) throw error;
      try {
        const removed = await removeExactly(scope, key, error.current, write.dryRun);
        return { object: await toServedVersion(scope, removed), created: false, deleted: true, warnings };
      } catch (removeError) {
        // A write raced the removal: start over from fresh state unless the caller pinned a version.
        const raced = removeError instanceof ObjectError && (removeError.reason === 'Conflict' || removeError.reason === 'NotFound');
        if (!raced || write.preconditions?.resourceVersion !== undefined || attempt >= MAX_ATTEMPTS) throw removeError;
      }
    }
  }
}

/** Removes the object only if it is still exactly `current`. */
export function removeExactly(scope: HandlerScope, key: ObjectKey, current: KubeObject, dryRun: boolean): Promise<KubeObject> {
  return scope.storage.delete(key, {
    preconditions: { uid: current.metadata.uid, resourceVersion: current.metadata.resourceVersion },
    dryRun,
  });
}

