/**
 * The store's ownership step: every write but server-side apply (which computes its own) is
 * recorded in `metadata.managedFields` as an Update by its manager, just before storage.
 */
import type { KubeObject } from '../../../api/objects';
import type { SchemaContext } from '../../fieldmanager/field-set';
import { managedFieldsAfterUpdate, requestedManagedFields } from '../../fieldmanager/managed-fields';
import { resolveDefinition } from '../../validation/decode';
import { apiVersionOf, preparesInServedVersion, toServedVersion, type StoreScope } from './scope';
import { storageGroupVersion } from '../types';
import { mainResetFieldsOf, statusResetFieldsOf } from '../reset-fields';

import type { ManagedFieldsEntry } from '../../fieldmanager/managed-fields-entry';
function schemaContextOf(scope: StoreScope): SchemaContext {
  const definitions = scope.context.definitions;
  if (definitions === undefined) return {};
  return { definitions, schema: resolveDefinition(definitions, scope.version.definition) };
}

/** Whether a write's objects are prepared in another version than the scope's (its storage version). */
function preparedInOtherVersion(scope: StoreScope): boolean {
  if (scope.type.convert === undefined || preparesInServedVersion(scope)) return false;
  const stored = storageGroupVersion(scope.type);
  return stored.group !== scope.type.group || stored.version !== scope.version.version;
}

/**
 * Sets `object.metadata.managedFields` for a non-apply write of `object` over `previous`
 * (`previous` absent on create). The entries start from those the request set, else the stored
 * ones; a subresource's request cannot set them, as in the reference. A request sending `[{}]`
 * clears every entry first, so it owns what it changed against the stored object and no one
 * else owns anything. `written` is what the manager is credited with, when that is not `object`
 * itself (a create: the object before the server filled its own fields).
 */
export async function recordManagedFields(options: {
  readonly scope: StoreScope;
  readonly object: KubeObject;
  readonly previous?: KubeObject;
  readonly written?: KubeObject;
  readonly manager: string;
  readonly subresource?: string;
}): Promise<void> {
  const { scope, object, previous } = options;
  const stored = previous?.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  const requested = options.subresource
    ? (stored ?? [])
    : requestedManagedFields(object.metadata.managedFields, stored);
  // Fields are counted in the request's version, as the reference's field manager converts to
  // it: an events.k8s.io Event's writer owns `regarding`, though core v1's `involvedObject` is stored.
  const converted = preparedInOtherVersion(scope);
  const view = async (value: KubeObject): Promise<unknown> => {
    const served = converted ? await toServedVersion(scope, value) : value;
    return { ...served, metadata: { ...served.metadata, managedFields: undefined } };
  };
  const entries = managedFieldsAfterUpdate({
    previous: previous === undefined ? undefined : await view(previous),
    managedFields: requested,
    next: await view(options.written ?? object),
    manager: options.manager,
    apiVersion: apiVersionOf(scope),
    subresource: options.subresource,
    ignored: resetFieldsOf(scope, options.subresource),
    now: scope.context.now(),
    schema: schemaContextOf(scope),
  });
  if (entries.length > 0) object.metadata.managedFields = entries;
  else delete object.metadata.managedFields;
}

/** What the endpoint written through resets: the main resource's, or the status strategy's. */
function resetFieldsOf(scope: StoreScope, subresource: string | undefined): readonly (readonly string[])[] | undefined {
  if (subresource === undefined) return mainResetFieldsOf(scope.type);
  return subresource === 'status' ? statusResetFieldsOf(scope.type) : undefined;
}
