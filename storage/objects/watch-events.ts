/**
 * Turning a change of one key into the watch event a watcher with a selector sees. A change can
 * move an object into or out of the selection: the watcher then sees it appear (ADDED) or
 * disappear (DELETED), as the reference server does.
 */
import type { KeyValue, StoreEvent } from '../store';
import { corruptObjectMetIn, decodeObject, isCorruptObjectError, withResourceVersion, type ValueCodec } from './codec';
import type { ObjectWatchEvent, Predicate } from './types';

import type { KubeObject } from '../../api/objects';
export interface ObjectChange {
  /** Revision of the change (for a deletion: the deletion's). */
  readonly revision: number;
  /** The object after the change; undefined for a deletion. */
  readonly object: KubeObject | undefined;
  /** The object before the change; undefined for a creation. */
  readonly previous: KubeObject | undefined;
}

/** Decodes a store event into the objects before and after it. */
export function objectChangeOf(event: StoreEvent, codec?: ValueCodec): ObjectChange {
  return {
    revision: event.kv.modRevision,
    object: event.type === 'put' ? decodeObject(event.kv, codec) : undefined,
    previous: event.prevKv === undefined ? undefined : decodePrevious(event, event.prevKv, codec),
  };
}

/** The object before the change; a deleted value that cannot be read is marked so (the reference words it apart). */
function decodePrevious(event: StoreEvent, previous: KeyValue, codec: ValueCodec | undefined): KubeObject {
  try {
    return decodeObject(previous, codec);
  } catch (error) {
    if (event.type !== 'delete' || !isCorruptObjectError(error)) throw error;
    throw corruptObjectMetIn(error, 'deletion');
  }
}

/** The event `predicate`'s watcher sees for `change`, or undefined when it sees nothing. */
export function watchEventFor(change: ObjectChange, predicate: Predicate): ObjectWatchEvent | undefined {
  const matchedBefore = change.previous !== undefined && predicate.matches(change.previous);
  const matchesNow = change.object !== undefined && predicate.matches(change.object);
  if (matchesNow) {
    return { type: matchedBefore ? 'MODIFIED' : 'ADDED', object: change.object as KubeObject };
  }
  if (matchedBefore) {
    // The last state the watcher saw, stamped with the revision at which it went away.
    return { type: 'DELETED', object: withResourceVersion(change.previous as KubeObject, change.revision) };
  }
  return undefined;
}
