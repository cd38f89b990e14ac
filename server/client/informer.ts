/**
 * An in-process informer: list, then watch from the list's revision, keeping a map of the
 * objects of one resource type and calling back on each change. When the watch ends (timeout,
 * slow-reader drop, 410 Expired, store trouble) it lists again and reports the differences, so
 * callbacks see every object's latest state even across gaps.
 */
import { setImmediate } from 'node:timers/promises';
import type { ObjectStorage } from '../../storage/objects/types';
import { EVERYTHING } from '../../storage/objects/types';

import type { KubeObject } from '../../api/objects';
export interface InformerHandlers {
  onUpsert?(object: KubeObject, old: KubeObject | undefined): void;
  onDelete?(object: KubeObject): void;
}

export interface Informer {
  /** Resolves once the first list has been delivered. */
  readonly synced: Promise<void>;
  /** Current objects by `namespace/name` (or `name`). Shared: do not mutate. */
  readonly objects: ReadonlyMap<string, KubeObject>;
  stop(): void;
}

export function objectMapKey(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name}` : String(name);
}

const RETRY_DELAY_MS = 500;
/** Objects handled between two turns of the event loop while a list is delivered. */
const RELIST_SLICE = 1_000;
const WATCH_TIMEOUT_SECONDS = 300;

export function startInformer(storage: ObjectStorage, handlers: InformerHandlers): Informer {
  const objects = new Map<string, KubeObject>();
  let stopped = false;
  let currentWatch: { stop(): void } | undefined;
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => (markSynced = resolve));

  const upsert = (object: KubeObject): void => {
    const key = objectMapKey(object);
    const old = objects.get(key);
    if (old && old.metadata.resourceVersion === object.metadata.resourceVersion) return;
    objects.set(key, object);
    handlers.onUpsert?.(object, old);
  };
  const remove = (object: KubeObject): void => {
    const key = objectMapKey(object);
    if (!objects.delete(key)) return;
    handlers.onDelete?.(object);
  };

  const relist = async (): Promise<string> => {
    const list = await storage.list({}, { predicate: EVERYTHING });
    const seen = new Set<string>();
    for (let index = 0; index < list.items.length; index++) {
      // Tens of thousands of objects at start: let requests in between slices of them.
      if (index > 0 && index % RELIST_SLICE === 0) await setImmediate();
      if (stopped) break;
      const item = list.items[index];
      seen.add(objectMapKey(item));
      upsert(item);
    }
    if (stopped) return list.resourceVersion;
    for (const [key, object] of objects) if (!seen.has(key)) remove(object);
    return list.resourceVersion;
  };

  // Resume a watch from the last revision seen; list again only when resuming is not possible.
  const run = async (): Promise<void> => {
    let resourceVersion: string | undefined;
    while (!stopped) {
      try {
        if (resourceVersion === undefined) {
          resourceVersion = await relist();
          markSynced();
        }
        const startedAt = Date.now();
        const watch = await storage.watch(
          {},
          { resourceVersion, predicate: EVERYTHING, timeoutSeconds: WATCH_TIMEOUT_SECONDS },
        );
        currentWatch = watch;
        if (stopped) watch.stop();
        for await (const event of watch) {
          if (event.type === 'ERROR') {
            resourceVersion = undefined;
            break;
          }
          resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
          if (event.type === 'DELETED') remove(event.object);
          else if (event.type !== 'BOOKMARK') upsert(event.object);
        }
        // A watch that ended at once (dropped as slow, store restarting) must not spin.
        if (Date.now() - startedAt > RETRY_DELAY_MS) continue;
      } catch {
        resourceVersion = undefined;
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  };
  void run();

  return {
    synced,
    objects,
    stop() {
      stopped = true;
      currentWatch?.stop();
    },
  };
}
