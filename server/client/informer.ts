/**
 * An in-process informer: list, then watch from the list's revision, keeping a map of the
 * objects of one resource type and calling back on each change. When the watch ends (timeout,
 * slow-reader drop, 410 Expired, store trouble) it lists again and reports the differences, so
 * callbacks see every object's latest state even across gaps.
 */
import { setImmediate } from 'node:timers/promises';
import type { ObjectStorage, Scope } from '../../storage/objects/types';
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
/** Objects a page of the list holds, and so objects handled between two turns of the event loop. */
const LIST_PAGE = 1_000;
const WATCH_TIMEOUT_SECONDS = 300;

/**
 * Informs on the objects of `storage` in `scope`: one namespace's, for a controller that minds
 * only that namespace, so the writes of every other namespace never reach it (the cache finds
 * its watchers by namespace) and its map holds only what it minds.
 */
export function startInformer(storage: ObjectStorage, handlers: InformerHandlers, scope: Scope = {}): Informer {
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

  // In pages at one revision, as client-go's reflector lists: the watch cache decodes what it
  // listed at start on first read, so one unpaged list of a large type would hold the event loop
  // for seconds; a page at a time lets requests in between.
  const relist = async (): Promise<string> => {
    const seen = new Set<string>();
    let page = await storage.list(scope, { predicate: EVERYTHING, limit: LIST_PAGE });
    const { resourceVersion } = page;
    for (;;) {
      if (stopped) return resourceVersion;
      for (const item of page.items) {
        seen.add(objectMapKey(item));
        upsert(item);
      }
      if (!page.continue) break;
      // A page the cache answers is ready at once: the turn must be given explicitly.
      await setImmediate();
      page = await storage.list(scope, { predicate: EVERYTHING, limit: LIST_PAGE, continue: page.continue });
    }
    for (const [key, object] of objects) if (!seen.has(key)) remove(object);
    return resourceVersion;
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
        const watch = await storage.watch(scope, {
          resourceVersion,
          predicate: EVERYTHING,
          timeoutSeconds: WATCH_TIMEOUT_SECONDS,
        });
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
