/**
 * The metadata-only forms: `PartialObjectMetadata` for one object, `PartialObjectMetadataList`
 * for a collection, in `meta.k8s.io/v1` (or `v1beta1`, which the reference still serves).
 */
import { inGoObjectMetaOrder } from '../../api/object-meta-order';
import type { KubeObject, ObjectMeta } from '../../api/objects';
import { markedAs } from '../json/go-map-order';

export interface PartialObjectMetadata {
  readonly kind: 'PartialObjectMetadata';
  readonly apiVersion: string;
  readonly metadata: ObjectMeta;
}

export interface ListMetadata {
  readonly resourceVersion?: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

export function metaApiVersion(version: string): string {
  return `meta.k8s.io/${version}`;
}

/** The object's metadata alone, marked as the object is for the JSON writers (its labels and annotations are the same maps). */
export function asPartialObjectMetadata(object: KubeObject, version = 'v1'): PartialObjectMetadata {
  const partial: PartialObjectMetadata = {
    kind: 'PartialObjectMetadata',
    apiVersion: metaApiVersion(version),
    metadata: inGoObjectMetaOrder(object.metadata),
  };
  return markedAs(partial, object);
}

/** A list's head in metadata form; items follow one by one (`asPartialObjectMetadata`). */
export function partialObjectMetadataListHead(
  metadata: ListMetadata,
  version = 'v1',
): { kind: 'PartialObjectMetadataList'; apiVersion: string; metadata: ListMetadata } {
  return { kind: 'PartialObjectMetadataList', apiVersion: metaApiVersion(version), metadata };
}
