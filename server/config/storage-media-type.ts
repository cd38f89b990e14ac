/**
 * `--storage-media-type`: the encodings the reference 1.34 allows for stored built-in objects
 * (it refuses CBOR there). The encoding itself is server/codec/storage-value.ts's.
 */
export const STORAGE_MEDIA_TYPES = [
  'application/json',
  'application/vnd.kubernetes.protobuf',
  'application/yaml',
] as const;
export type StorageMediaType = (typeof STORAGE_MEDIA_TYPES)[number];
