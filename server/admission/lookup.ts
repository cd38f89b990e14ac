/**
 * How plugins read the objects they decide by (PriorityClasses, StorageClasses, IngressClasses,
 * RuntimeClasses): from the replica's watch caches, which are current to within a moment, as
 * the reference's plugins read their informers. Never the store per request.
 */
import { WatchCache } from '../../storage/cache/watch-cache';
import { ObjectError } from '../../storage/errors';
import type { ObjectStorage } from '../../storage/objects/types';
import { EVERYTHING } from '../../storage/objects/types';

import type { KubeObject } from '../../api/objects';
/** The storage of a served group/resource (the watch cache over the store). */
export type StorageOf = (group: string, resource: string) => ObjectStorage;

/** Every object of a resource, or of one namespace's when `namespace` is given, as the cache holds it. */
export async function listCached(storage: ObjectStorage, namespace?: string): Promise<readonly KubeObject[]> {
  const scope = namespace === undefined ? {} : { namespace };
  // A watch cache answers from its state directly (several such reads a write); a list at
  // resourceVersion 0 reads the same state, or the store when the cache cannot answer.
  const now = storage instanceof WatchCache ? storage.objectsNow(scope) : undefined;
  return now ?? (await storage.list(scope, { resourceVersion: '0', predicate: EVERYTHING })).items;
}

/** One object (of a cluster-scoped resource when `namespace` is absent), or undefined. */
export async function getCached(
  storage: ObjectStorage,
  name: string,
  namespace?: string,
): Promise<KubeObject | undefined> {
  const key = namespace === undefined ? { name } : { namespace, name };
  const now = storage instanceof WatchCache ? storage.objectNow(key) : undefined;
  if (now !== undefined) return now ?? undefined;
  try {
    return await storage.get(key, { resourceVersion: '0' });
  } catch (error) {
    if (error instanceof ObjectError && error.reason === 'NotFound') return undefined;
    throw error;
  }
}

/** The class marked default by `annotation` (the newest when several are), as the reference picks it. */
export function defaultClass(classes: readonly KubeObject[], annotation: string): KubeObject | undefined {
  let chosen: KubeObject | undefined;
  for (const candidate of classes) {
    if (candidate.metadata.annotations?.[annotation] !== 'true') continue;
    const newer =
      chosen === undefined || String(candidate.metadata.creationTimestamp) > String(chosen.metadata.creationTimestamp);
    const sameTimeEarlierName =
      chosen !== undefined &&
      candidate.metadata.creationTimestamp === chosen.metadata.creationTimestamp &&
      String(candidate.metadata.name) < String(chosen.metadata.name);
    if (newer || sameTimeEarlierName) chosen = candidate;
  }
  return chosen;
}

/** Whether the write is a create or update of the main resource `group/resource`. */
export function writes(
  attributes: { resource: { group: string; resource: string }; subResource: string },
  group: string,
  resource: string,
): boolean {
  return (
    attributes.resource.group === group && attributes.resource.resource === resource && attributes.subResource === ''
  );
}
