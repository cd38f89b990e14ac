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

/** The last second metaTime formatted: the timestamps a burst of writes stamps mostly share one. */
let lastSecond = Number.NaN;
let lastSecondText = '';

/** A time as metav1.Time is written: RFC 3339 to the second, in UTC. Throws for an invalid date. */
export function metaTime(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== lastSecond) {
    lastSecondText = date.toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastSecondText;
}
