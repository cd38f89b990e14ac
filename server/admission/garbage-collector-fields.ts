/**
 * The fields the garbage collector writes. An update that changes only these grants nothing and
 * claims nothing, so the checks that guard what an object says (RBAC's escalation checks, a
 * trust bundle's signer attestation) let it pass, as the reference's IsOnlyMutatingGCFields does:
 * the collector must be able to finish deleting what it may not otherwise write.
 */
import type { KubeObject } from '../../api/objects';
import { deepEqual } from '../status/field-errors';

/** Whether `object` differs from `old` in nothing but owner references, finalizers, selfLink and managed fields. */
export function onlyGarbageCollectorFieldsChange(object: KubeObject, old: KubeObject): boolean {
  const { ownerReferences, finalizers, selfLink, managedFields } = old.metadata;
  const carried = { ownerReferences, finalizers, selfLink, managedFields };
  const metadata: Record<string, unknown> = { ...object.metadata };
  for (const [field, value] of Object.entries(carried)) {
    if (value === undefined) delete metadata[field];
    else metadata[field] = value;
  }
  return deepEqual({ ...object, metadata }, old);
}
