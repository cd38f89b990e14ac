/**
 * What controllers need from the API beyond plain storage: writes with the API's semantics
 * (a delete that honours finalizers and propagation; an update that removes a terminating
 * object once its last finalizer is gone). The server implements it with the same code the
 * HTTP handlers run, so a controller's write behaves exactly like a client's.
 */
import type { KubeObject, ObjectKey, ObjectStorage } from '../../storage/objects/types';
import type { ResourceRegistry, ResourceType } from '../registry/types';

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

export interface ObjectOperations {
  readonly registry: ResourceRegistry;
  storageFor(type: ResourceType): ObjectStorage;
  /** POST as a client would send it (defaults, validation, admission); AlreadyExists is not an error. */
  createObject(type: ResourceType, object: KubeObject): Promise<void>;
  /** DELETE as a client would send it; a missing object is not an error. */
  deleteObject(type: ResourceType, key: ObjectKey, options: { propagationPolicy?: PropagationPolicy; uid?: string }): Promise<void>;
  /**
   * PUT-like update from the current state (of the main resource, of the `finalize`
   * subresource, which alone may change a namespace's spec.finalizers, or of the `status`
   * subresource, which alone may change status); a missing object is not an error.
   */
  updateObject(type: ResourceType, key: ObjectKey, mutate: (object: KubeObject) => void, target?: 'main' | 'finalize' | 'status'): Promise<void>;
}
