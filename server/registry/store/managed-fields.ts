/**
 * The store's ownership step: every write but server-side apply (which computes its own) is
 * recorded in `metadata.managedFields` as an Update by its manager, just before storage.
 */
import type { KubeObject } from '../../../storage/objects/types';
import type { SchemaContext } from '../../fieldmanager/field-set';
import { managedFieldsAfterUpdate, requestedManagedFields, type ManagedFieldsEntry } from '../../fieldmanager/managed-fields';
import { resolveDefinition } from '../../validation/decode';
import { apiVersionOf, type StoreScope } from './scope';

function schemaContextOf(scope: StoreScope): SchemaContext {
  const definitions = scope.context.definitions;
  if (definitions === undefined) return {};
  return { definitions, schema: resolveDefinition(definitions, scope.version.definition) };
}

/**
 * Sets `object.metadata.managedFields` for a non-apply write of `object` over `previous`
 * (`previous` absent on create). The entries start from those the request set, else the stored
 * ones; a subresource's request cannot set them, as in the reference. A `[{}]` reset is the
 * caller's to apply first (see ownershipBefore), since it also changes what the write is
 * compared against. `written` is what the manager is credited with, when that is not `object`
 * itself (a create: the object before the server filled its own fields).
 */
export function recordManagedFields(options: {
  readonly scope: StoreScope;
  readonly object: KubeObject;
  readonly previous?: KubeObject;
  readonly written?: KubeObject;
  readonly manager: string;
  readonly subresource?: string;
}): void {
  const { scope, object, previous } = options;
  const stored = previous?.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  const sent = options.subresource ? undefined : object.metadata.managedFields;
  const withoutManagedFields = (value: KubeObject): unknown => ({ ...value, metadata: { ...value.metadata, managedFields: undefined } });
  const entries = managedFieldsAfterUpdate({
    previous: previous === undefined ? undefined : withoutManagedFields(previous),
    managedFields: requestedManagedFields(sent, stored).entries,
    next: withoutManagedFields(options.written ?? object),
    manager: options.manager,
    apiVersion: apiVersionOf(scope),
    subresource: options.subresource,
    now: scope.context.now(),
    schema: schemaContextOf(scope),
  });
  if (entries.length > 0) object.metadata.managedFields = entries;
  else delete object.metadata.managedFields;
}

/**
 * The stored object as ownership is counted from. A write sending `[{}]` clears every entry
 * first, so it owns what it changed against the stored object, and no one else owns anything
 * (a subresource's request cannot set managedFields, so neither can it reset them).
 */
export function ownershipBefore(object: KubeObject, current: KubeObject, subresource: string | undefined): KubeObject {
  const stored = current.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  if (subresource || !requestedManagedFields(object.metadata.managedFields, stored).reset) return current;
  delete object.metadata.managedFields;
  return { ...current, metadata: { ...current.metadata, managedFields: [] } };
}
