/**
 * Create: the one function every create runs through (POST, and the server's own controllers).
 * The steps, in the reference's order (its create handler, then its registry store's Create):
 *
 *   1. the object in the version it is prepared in (a built-in kind's storage version, a custom
 *      resource's request version: scope.ts's preparedVersion), with that version's defaults,
 *      each owner reference sent twice kept once (with a warning)
 *   2. mutating admission (CREATE), then owner references deduplicated again; a type that
 *      takes no new objects (createRefusal) refuses here, before any plugin
 *   3. system metadata: generated name, uid, creationTimestamp (FillObjectMetaSystemFields)
 *   4. the strategy's prepareForCreate (fresh status, generation 1...)
 *   5. the strategy's validate (422), then its warnings: a refused object gets none of them,
 *      though what admission and the preparation warned of before goes out with the refusal
 *   6. the kind's beginCreate hook (a Service's cluster IPs and node ports; on a dry run it
 *      takes nothing)
 *   7. validating admission (CREATE), seeing the object as it will be stored
 *   8. managedFields: the write recorded as its manager's Update, crediting it with the object
 *      as of step 1 (what it sent, defaulted), not what admission or the server set later
 *   9. storage, in the storage version: a resourceVersion is refused here (400: a create names
 *      no version), where the reference's etcd storage refuses it, so an invalid object is a
 *      422 first and a dry run, which never reaches that storage, accepts it; a dry run stops
 *      here, having checked the name is free
 *  10. the hook's finish: what it held is given back when the object was not stored
 *
 * A taken generated name starts over with a new one (the reference's RetryGenerateName).
 */
import { ObjectError } from '../../../storage/errors';
import type { ObjectKey } from '../../../storage/objects/types';
import { copyJson } from '../../json/value';
import { badRequest, forbidden } from '../../status/catalogue';
import { admissionAttributes, type WriteRequest } from './admission';
import { FINISH_NOTHING, type FinishWrite } from './hooks';
import { recordManagedFields } from './managed-fields';
import { dedupOwnerReferences, fillCreateMetadata } from './object-meta';
import {
  invalidObject,
  objectKeyOf,
  preparedToStored,
  preparedVersion,
  toPreparedVersion,
  toServedVersion,
  writeContextOf,
  type StoreScope,
} from './scope';

import type { KubeObject } from '../../../api/objects';
/** The reference retries a create whose generated name was taken (RetryGenerateName). */
const GENERATED_NAME_ATTEMPTS = 8;

export interface CreateRequest extends WriteRequest {
  /** A decoded object of the scope's version, its namespace already checked; not changed. */
  readonly object: KubeObject;
  readonly manager: string;
}

export async function createObject(scope: StoreScope, request: CreateRequest): Promise<KubeObject> {
  const nameIsGenerated = !request.object.metadata.name && Boolean(request.object.metadata.generateName);
  for (let attempt = 1; ; attempt++) {
    try {
      return await createOnce(scope, request);
    } catch (error) {
      const taken = error instanceof ObjectError && error.reason === 'AlreadyExists';
      if (!taken || !nameIsGenerated || attempt >= GENERATED_NAME_ATTEMPTS) throw error;
    }
  }
}

async function createOnce(scope: StoreScope, request: CreateRequest): Promise<KubeObject> {
  // Steps 1-7 change the object; the request's stays as sent for a retry.
  const prepared = await prepareNewObject(scope, request, copyJson(request.object), async () => undefined);
  const { object, key } = prepared;
  let stored = false;
  try {
    await recordManagedFields({ scope, object, written: prepared.written, manager: request.manager });
    const { resourceVersion } = object.metadata;
    if (!request.dryRun && resourceVersion !== undefined && resourceVersion !== '')
      throw badRequest('resourceVersion should not be set on objects to be created');
    const created = await scope.storage.create(key, await preparedToStored(scope, object), {
      dryRun: request.dryRun,
      deadline: request.deadline,
    });
    stored = true;
    return await toServedVersion(scope, created);
  } finally {
    await prepared.finish(stored);
  }
}

export interface PreparedObject {
  /** In the version it is prepared in (preparedVersion), ready to store but for its managedFields. */
  readonly object: KubeObject;
  readonly key: ObjectKey;
  /**
   * The object as its manager is credited with writing it: sent and defaulted, before admission
   * and the server's own fields (status, a Namespace's finalizers, a Service's IP families), as
   * the reference records ownership in its handler before its registry fills them.
   */
  readonly written: KubeObject;
  /** The kind's hook's finish; call it once the write is stored or has failed. */
  readonly finish: FinishWrite;
}

/**
 * Steps 1-7 of a create, shared with the create an update may make (PUT or apply of a
 * missing object). `authorize` runs after validation, before validating admission: an update
 * that creates needs the caller's `create` permission besides its own verb.
 */
export async function prepareNewObject(
  scope: StoreScope,
  write: WriteRequest,
  sent: KubeObject,
  authorize: () => Promise<void>,
): Promise<PreparedObject> {
  const { strategy } = scope.type;
  // 1. The prepared version and its defaults; owner references sent twice, once (a patch's: after admission).
  const object = await toPreparedVersion(scope, sent);
  strategy.applyDefaults?.(object, preparedVersion(scope));
  if (!write.patch) dedupOwnerReferences(object, write.warnings, false);
  const written = copyJson(object);
  // 2. Mutating admission; a type that takes no new objects refuses first.
  const attributes = admissionAttributes(scope, write, {
    operation: 'CREATE',
    key: objectKeyOf(scope, keyFields(object)),
    object,
  });
  const { createRefusal } = scope.type;
  if (createRefusal !== undefined) throw forbidden(attributes.resource, attributes.name, createRefusal);
  await scope.context.admission.admit(attributes);
  dedupOwnerReferences(object, write.warnings, true);
  // 3-5. System metadata, preparation, validation.
  fillCreateMetadata(object, scope.context.now());
  const context = writeContextOf(scope, write);
  strategy.prepareForCreate?.(object, context);
  const errors = strategy.validate?.(object, context) ?? [];
  if (errors.length > 0) throw invalidObject(scope, object.metadata.name ?? '', errors);
  for (const warning of strategy.warnings?.(object, undefined, context) ?? []) write.warnings?.add(warning);
  await authorize();
  // 6. The kind's hook: what it takes is given back if anything below fails.
  const beginCreate = scope.context.hooksFor?.(scope.type)?.beginCreate;
  const finish = beginCreate ? await beginCreate(object, { dryRun: write.dryRun, user: write.user }) : FINISH_NOTHING;
  try {
    // 7. Validating admission, with the name generated in step 3.
    const key = objectKeyOf(scope, keyFields(object));
    await scope.context.admission.validate({ ...attributes, name: key.name });
    return { object, key, written, finish };
  } catch (error) {
    await finish(false);
    throw error;
  }
}

function keyFields(object: KubeObject): { namespace?: string; name: string } {
  return { namespace: object.metadata.namespace, name: object.metadata.name ?? '' };
}
