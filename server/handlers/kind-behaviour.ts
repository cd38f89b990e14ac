/**
 * Per-kind facts of the generic store that ResourceType does not carry yet, keyed by qualified
 * resource (`pods`, `leases.coordination.k8s.io`), with the reference's values. They belong on
 * ResourceType; until then they live here, in one table.
 */
import type { KubeObject } from '../../storage/objects/types';
import type { ResourceType } from '../registry/types';
import { qualifiedResourceString } from '../registry/types';

/** Kinds whose DELETE answers the deleted object instead of a Success Status (ReturnDeletedObject). */
const RETURNS_DELETED_OBJECT = new Set(['pods', 'namespaces', 'customresourcedefinitions.apiextensions.k8s.io']);

/** Kinds a PUT may create (AllowCreateOnUpdate). */
const CREATE_ON_UPDATE = new Set([
  'endpoints',
  'events',
  'events.events.k8s.io',
  'limitranges',
  'replicationcontrollers',
  'services',
  'leases.coordination.k8s.io',
  'endpointslices.discovery.k8s.io',
  'roles.rbac.authorization.k8s.io',
  'rolebindings.rbac.authorization.k8s.io',
  'clusterroles.rbac.authorization.k8s.io',
  'clusterrolebindings.rbac.authorization.k8s.io',
]);

export function returnsDeletedObject(type: ResourceType): boolean {
  return RETURNS_DELETED_OBJECT.has(qualifiedResourceString(type));
}

export function allowsCreateOnUpdate(type: ResourceType): boolean {
  return CREATE_ON_UPDATE.has(qualifiedResourceString(type));
}

/** Custom resources need a resourceVersion on PUT; built-in kinds take an unconditional one. */
export function allowsUnconditionalUpdate(type: ResourceType): boolean {
  return !type.group.includes('.') || type.group.endsWith('.k8s.io');
}

/**
 * What still holds an object being deleted: its metadata.finalizers, plus spec.finalizers for
 * kinds with a `finalize` subresource (namespaces).
 */
export function pendingFinalizers(type: ResourceType, object: KubeObject): string[] {
  const own = object.metadata.finalizers ?? [];
  if (!type.subresources.finalize) return [...own];
  const spec = object.spec as { finalizers?: string[] } | undefined;
  return [...own, ...(spec?.finalizers ?? [])];
}
