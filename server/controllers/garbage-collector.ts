/**
 * The garbage collector for ownerReferences, after the reference's:
 * - an object all of whose owners are gone is deleted (background propagation); owners that
 *   are gone are dropped from an object that still has a live one;
 * - an owner terminating with the `foregroundDeletion` finalizer has its dependents deleted
 *   first, and loses the finalizer (and so disappears) once none that blocks it is left (a
 *   dependent blocks when its reference says `blockOwnerDeletion: true`);
 * - a cycle of foreground deletions is broken as the reference breaks it: a dependent whose
 *   owner deletes in foreground, and which is itself the owner of an object deleting in
 *   foreground, stops blocking its owners before it is deleted;
 * - an owner terminating with the `orphan` finalizer has its reference removed from every
 *   dependent, then loses the finalizer.
 * Owners are recognised by uid across every served type, so the graph needs one informer per
 * type (following the registry as types come and go); informers that have not synced yet
 * make the collector wait rather than delete.
 */
import type { KubeObject, OwnerReference } from '../../api/objects';
import type { ResourceType } from '../registry/types';
import { startInformer, type Informer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';
/** How soon an owner in foreground deletion is looked at again while dependents remain. */
const DEPENDENTS_RECHECK_MS = 500;

/** The informer of one stored prefix, and the type its objects are handled as now. */
interface Watched {
  type: ResourceType;
  synced: boolean;
  readonly informer: Informer;
}

interface Node {
  readonly type: ResourceType;
  readonly object: KubeObject;
}

function ownerRefs(object: KubeObject): OwnerReference[] {
  return object.metadata.ownerReferences ?? [];
}

function keyOf(object: KubeObject): { namespace?: string; name: string } {
  const { namespace, name } = object.metadata;
  return namespace ? { namespace, name: String(name) } : { name: String(name) };
}

export function startGarbageCollector(operations: ObjectOperations, stop: AbortSignal): { synced: Promise<void> } {
  const byUid = new Map<string, Node>();
  const dependentsOf = new Map<string, Set<string>>(); // owner uid → dependent uids

  const index = (type: ResourceType, object: KubeObject, old: KubeObject | undefined): void => {
    const uid = String(object.metadata.uid);
    for (const ref of old ? ownerRefs(old) : []) dependentsOf.get(ref.uid)?.delete(uid);
    byUid.set(uid, { type, object });
    for (const ref of ownerRefs(object)) {
      let set = dependentsOf.get(ref.uid);
      if (!set) dependentsOf.set(ref.uid, (set = new Set()));
      set.add(uid);
    }
  };
  const unindex = (object: KubeObject): void => {
    const uid = String(object.metadata.uid);
    byUid.delete(uid);
    for (const ref of ownerRefs(object)) dependentsOf.get(ref.uid)?.delete(uid);
  };

  /** Whether an object's reference to this owner holds the owner's foreground deletion. */
  const blocks = (dependent: Node, ownerUid: string): boolean =>
    ownerRefs(dependent.object).some((ref) => ref.uid === ownerUid && ref.blockOwnerDeletion === true);

  const deletingInForeground = (object: KubeObject | undefined): boolean =>
    object?.metadata.deletionTimestamp !== undefined &&
    (object.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER);

  /** Dependents of this uid that still exist. */
  const dependents = (uid: string): Node[] =>
    [...(dependentsOf.get(uid) ?? [])]
      .map((dependent) => byUid.get(dependent))
      .filter((node): node is Node => node !== undefined);

  const removeFinalizer = (node: Node, finalizer: string): Promise<void> =>
    operations.updateObject(node.type, keyOf(node.object), (object) => {
      object.metadata.finalizers = (object.metadata.finalizers ?? []).filter((entry) => entry !== finalizer);
    });

  const processOwner = async (node: Node): Promise<boolean> => {
    const { metadata } = node.object;
    if (!metadata.deletionTimestamp) return true;
    const uid = String(metadata.uid);
    const finalizers = metadata.finalizers ?? [];
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      for (const dependent of dependents(uid)) {
        await operations.updateObject(dependent.type, keyOf(dependent.object), (object) => {
          object.metadata.ownerReferences = ownerRefs(object).filter((ref) => ref.uid !== uid);
          if (object.metadata.ownerReferences.length === 0) delete object.metadata.ownerReferences;
        });
      }
      await removeFinalizer(node, ORPHAN_FINALIZER);
      return true;
    }
    if (finalizers.includes(FOREGROUND_FINALIZER)) {
      const left = dependents(uid);
      // Each is deleted as a dependent of an owner in foreground (cycles broken there).
      for (const dependent of left) await processDependent(dependent);
      if (left.some((dependent) => blocks(dependent, uid))) return false;
      await removeFinalizer(node, FOREGROUND_FINALIZER);
    }
    return true;
  };

  const processDependent = async (node: Node): Promise<boolean> => {
    const refs = ownerRefs(node.object);
    if (refs.length === 0 || node.object.metadata.deletionTimestamp) return true;
    const live = refs.filter((ref) => byUid.has(ref.uid));
    const ownerInForeground = live.some((ref) => deletingInForeground(byUid.get(ref.uid)?.object));
    const uid = String(node.object.metadata.uid);
    const inCycle = ownerInForeground && dependents(uid).some((dependent) => deletingInForeground(dependent.object));
    if (inCycle && refs.some((ref) => ref.blockOwnerDeletion === true)) {
      // Its owner waits for it, and it (in foreground) would wait for a dependent that waits in
      // turn: the reference's collector makes its references non-blocking, then deletes it.
      await operations.updateObject(node.type, keyOf(node.object), (object) => {
        object.metadata.ownerReferences = ownerRefs(object).map((ref) =>
          ref.blockOwnerDeletion === true ? { ...ref, blockOwnerDeletion: false } : ref,
        );
      });
    }
    if (live.length === 0 || ownerInForeground) {
      await operations.deleteObject(node.type, keyOf(node.object), {
        propagationPolicy: ownerInForeground ? 'Foreground' : 'Background',
        uid: node.object.metadata.uid,
      });
    } else if (live.length < refs.length) {
      const liveUids = new Set(live.map((ref) => ref.uid));
      await operations.updateObject(node.type, keyOf(node.object), (object) => {
        object.metadata.ownerReferences = ownerRefs(object).filter((ref) => liveUids.has(ref.uid));
      });
    }
    return true;
  };

  const queue = startWorkQueue<string>({
    stop,
    handle: async (uid) => {
      const node = byUid.get(uid);
      if (!node) return;
      const done = (await processOwner(node)) && (await processDependent(node));
      // An owner in foreground deletion waits for its dependents; their deletion events enqueue it too.
      if (!done) queue.addAfter(uid, DEPENDENTS_RECHECK_MS);
    },
  });
  // Owners are found by uid among every type: while an informer has not listed yet, a missing
  // owner may only be unlisted, so keys wait until every informer has synced (at start, and
  // again while a type added later lists).
  const waiting = new Set<string>();
  const watched = new Map<string, Watched>();
  let unsynced = 0;
  const enqueue = (uid: string): void => {
    if (unsynced > 0) waiting.add(uid);
    else queue.add(uid);
  };
  const markSynced = (entry: Watched): void => {
    if (entry.synced) return;
    entry.synced = true;
    unsynced--;
    if (unsynced > 0) return;
    for (const uid of waiting) queue.add(uid);
    waiting.clear();
  };

  const watch = (type: ResourceType): Watched => {
    unsynced++;
    const entry: Watched = {
      type,
      synced: false,
      informer: startInformer(operations.storageFor(type), {
        onUpsert: (object, old) => {
          index(entry.type, object, old);
          // Only an object with owners or in deletion has work (`handle` does nothing for the
          // rest): not queueing the rest keeps the first list of a large store from queueing
          // every object, as the reference's graph builder queues only those.
          if (ownerRefs(object).length > 0 || object.metadata.deletionTimestamp) enqueue(String(object.metadata.uid));
          // A terminating owner may need its dependents handled.
          if (object.metadata.deletionTimestamp)
            for (const dependent of dependents(String(object.metadata.uid)))
              enqueue(String(dependent.object.metadata.uid));
        },
        onDelete: (object) => {
          unindex(object);
          for (const dependent of dependents(String(object.metadata.uid)))
            enqueue(String(dependent.object.metadata.uid));
          // An owner in foreground deletion waits for its dependents to go.
          for (const ref of ownerRefs(object)) enqueue(ref.uid);
        },
      }),
    };
    void entry.informer.synced.then(() => markSynced(entry));
    return entry;
  };

  // One informer per stored prefix of the watchable types, following the registry. Types that
  // share storage (core and events.k8s.io Events) are one set of objects: watched once. A type
  // gone takes its objects out of the graph without touching their dependents (the objects were
  // not seen deleted). The control plane adds a type's watch cache before this listener runs.
  const follow = (): void => {
    const wanted = new Map<string, ResourceType>();
    for (const type of operations.registry.all()) {
      if (type.virtual || !type.verbs.includes('watch') || wanted.has(type.storagePrefix)) continue;
      wanted.set(type.storagePrefix, type);
    }
    for (const [prefix, type] of wanted) {
      const entry = watched.get(prefix);
      if (entry) entry.type = type;
      else watched.set(prefix, watch(type));
    }
    for (const [prefix, entry] of watched) {
      if (wanted.has(prefix)) continue;
      watched.delete(prefix);
      entry.informer.stop();
      for (const object of entry.informer.objects.values()) unindex(object);
      markSynced(entry);
    }
  };
  follow();
  const synced = Promise.all([...watched.values()].map((entry) => entry.informer.synced)).then(() => undefined);
  const unsubscribe = operations.registry.onChange(follow);
  stop.addEventListener(
    'abort',
    () => {
      unsubscribe();
      for (const entry of watched.values()) entry.informer.stop();
    },
    { once: true },
  );
  return { synced };
}
