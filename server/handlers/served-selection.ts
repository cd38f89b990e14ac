/**
 * A watch whose field requirements only the objects as served can answer (handlers/list.ts
 * selectionOf): the storage has filtered by labels and metadata fields, and each event is
 * judged here on its converted objects by the selectors' enter and leave rule, as the watch
 * cache judges stored ones (storage/cache/cache-watcher.ts): a change into the selection is an
 * addition, out of it a deletion. The state before a change is converted too; a change whose
 * state before is unknown is a modification when it selects and a deletion when it does not (a
 * client that holds nothing of the object ignores that deletion).
 */
import type { ObjectWatchEvent } from '../../storage/objects/types';
import type { Converted } from '../registry/store/scope';

import type { KubeObject } from '../../api/objects';
type ObjectEvent = Extract<
  ObjectWatchEvent,
  { readonly object: KubeObject; readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' }
>;

/** The event a watcher with `selects` sees, its object as served; undefined when it sees none. */
export async function servedEvent(
  event: ObjectEvent,
  serve: (stored: KubeObject) => Converted<KubeObject>,
  selects: (served: KubeObject) => boolean,
): Promise<ObjectEvent | undefined> {
  const object = await serve(event.object);
  const selectsNow = selects(object);
  if (event.type === 'ADDED') return selectsNow ? { type: 'ADDED', object } : undefined;
  if (event.type === 'DELETED') return selectsNow ? { type: 'DELETED', object } : undefined;
  if (event.previous === undefined) return { type: selectsNow ? 'MODIFIED' : 'DELETED', object };
  const before = await serve(event.previous);
  const selectedBefore = selects(before);
  if (selectsNow) return { type: selectedBefore ? 'MODIFIED' : 'ADDED', object };
  // Leaving the selection: the last state the watcher saw, at the revision it went away.
  return selectedBefore
    ? {
        type: 'DELETED',
        object: { ...before, metadata: { ...before.metadata, resourceVersion: object.metadata.resourceVersion } },
      }
    : undefined;
}
