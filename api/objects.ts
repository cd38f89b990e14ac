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
 * The last second formatted: the timestamps of a write (creation, managed fields, conditions)
 * and of a burst of writes or decoded objects mostly share one, and then hold one string.
 */
let lastSecond = Number.NaN;
let lastSecondText = '';

/** A time as metav1.Time is written: RFC 3339 to the second, in UTC. Throws for an invalid date. */
export function metaTime(date: Date): string {
  return metaTimeAt(Math.floor(date.getTime() / 1000));
}

/** metav1.Time of `seconds` since the epoch (a whole number). Throws past the range of a Date. */
export function metaTimeAt(seconds: number): string {
  if (seconds !== lastSecond) {
    lastSecondText = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = seconds;
  }
  return lastSecondText;
}
