/**
 * What controllers need from the API beyond plain storage: writes with the API's semantics
 * (a delete that honours finalizers and propagation; an update that removes a terminating
 * object once its last finalizer is gone). The server implements it on the generic store
 * (server/registry/store/) the HTTP handlers call, so a controller's write behaves exactly like
 * a client's.
 */
import type { ObjectKey, ObjectStorage } from '../../storage/objects/types';
import type { PropagationPolicy } from '../registry/store/delete';
import type { ResourceRegistry, ResourceType } from '../registry/types';

import type { KubeObject } from '../../api/objects';
export interface ObjectOperations {
  readonly registry: ResourceRegistry;
  storageFor(type: ResourceType): ObjectStorage;
  /** POST as a client would send it (defaults, validation, admission); AlreadyExists is not an error. */
  createObject(type: ResourceType, object: KubeObject): Promise<void>;
  /** DELETE as a client would send it; a missing object is not an error. */
  deleteObject(
    type: ResourceType,
    key: ObjectKey,
    options: { propagationPolicy?: PropagationPolicy; uid?: string },
  ): Promise<void>;
  /**
   * PUT-like update from the current state (of the main resource, of the `finalize`
   * subresource, which alone may change a namespace's spec.finalizers, or of the `status`
   * subresource, which alone may change status); a missing object is not an error.
   */
  updateObject(
    type: ResourceType,
    key: ObjectKey,
    mutate: (object: KubeObject) => void,
    target?: 'main' | 'finalize' | 'status',
  ): Promise<void>;
  /**
   * Server-side apply of `config` (apiVersion, kind, metadata.name and the fields the controller
   * owns) to the `status` subresource as `manager`, forced, as the reference's controllers
   * apply their status; a missing object is not an error.
   */
  applyStatus(type: ResourceType, key: ObjectKey, config: Record<string, unknown>, manager: string): Promise<void>;
}
