/**
 * A controller that keeps one object in every live namespace: it reconciles a namespace when
 * the namespace appears and whenever its object changes or goes away, one namespace at a time,
 * retrying failures after a second. Terminating namespaces are left alone (nothing may be
 * created in them).
 */
import type { KubeObject } from '../../api/objects';
import type { ResourceType } from '../registry/types';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';

const RETRY_MS = 1000;

export interface PerNamespaceObject {
  /** The kind of the kept object (core v1 resource name). */
  readonly resource: string;
  readonly name: string;
  /** Creates or repairs the object of one namespace; `current` is the informer's view of it. */
  reconcile(namespace: string, current: KubeObject | undefined, type: ResourceType): Promise<void>;
}

export function coreType(operations: ObjectOperations, resource: string): ResourceType {
  const type = operations.registry.find({ group: '', version: 'v1' }, resource);
  if (!type) throw new Error(`${resource} are not served`);
  return type;
}

export function startPerNamespaceController(
  operations: ObjectOperations,
  kept: PerNamespaceObject,
  stop: AbortSignal,
): void {
  const type = coreType(operations, kept.resource);
  const pending = new Set<string>();
  let running = false;

  const live = (namespace: KubeObject | undefined) =>
    namespace !== undefined &&
    !namespace.metadata.deletionTimestamp &&
    (namespace.status as { phase?: string } | undefined)?.phase !== 'Terminating';

  const work = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      while (pending.size > 0 && !stop.aborted) {
        const namespace = pending.values().next().value as string;
        pending.delete(namespace);
        if (!live(namespaces.objects.get(namespace))) continue;
        try {
          await kept.reconcile(namespace, objects.objects.get(`${namespace}/${kept.name}`), type);
        } catch {
          setTimeout(() => enqueue(namespace), RETRY_MS);
        }
      }
    } finally {
      running = false;
    }
  };
  const enqueue = (namespace: string): void => {
    if (stop.aborted) return;
    pending.add(namespace);
    void work();
  };

  const namespaces = startInformer(operations.storageFor(coreType(operations, 'namespaces')), {
    onUpsert: (object) => enqueue(String(object.metadata.name)),
  });
  const objects = startInformer(operations.storageFor(type), {
    onUpsert: (object) => {
      if (object.metadata.name === kept.name) enqueue(String(object.metadata.namespace));
    },
    onDelete: (object) => {
      if (object.metadata.name === kept.name) enqueue(String(object.metadata.namespace));
    },
  });
  // Namespaces seen before the objects were listed are looked at again once both are known.
  void Promise.all([namespaces.synced, objects.synced]).then(() => {
    for (const name of namespaces.objects.keys()) enqueue(name);
  });
  stop.addEventListener(
    'abort',
    () => {
      namespaces.stop();
      objects.stop();
    },
    { once: true },
  );
}
