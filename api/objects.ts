/**
 * The shape every object of the API has: apiVersion, kind and the metadata the reference's
 * ObjectMeta carries; the rest is the kind's own. The storage keeps these objects and every
 * layer of the server reads them, so the type lives here, below both (api/ imports nothing).
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [field: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/**
 * Seconds formatted lately, one slot per second modulo the slot count: a write's timestamps
 * (creation, managed fields, conditions) and a burst of writes mostly share a second, and an
 * update decodes the stored object's older ones next to the new; with one slot those took
 * turns, and every read of a stored object formatted its times again (about 0.5 µs each).
 */
const FORMATTED_SLOTS = 256;
const formattedSeconds = new Float64Array(FORMATTED_SLOTS).fill(Number.NaN);
const formattedTexts: string[] = new Array<string>(FORMATTED_SLOTS).fill('');

/** A time as metav1.Time is written: RFC 3339 to the second, in UTC. Throws for an invalid date. */
export function metaTime(date: Date): string {
  return metaTimeAt(Math.floor(date.getTime() / 1000));
}

/** metav1.Time of `seconds` since the epoch (a whole number). Throws past the range of a Date. */
export function metaTimeAt(seconds: number): string {
  const slot = seconds & (FORMATTED_SLOTS - 1);
  if (formattedSeconds[slot] !== seconds) {
    formattedTexts[slot] = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    formattedSeconds[slot] = seconds;
  }
  return formattedTexts[slot];
}
