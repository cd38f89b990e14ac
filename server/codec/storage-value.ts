/**
 * Stored values as the reference kube-apiserver 1.34 writes them, so that it and capstan can
 * serve one etcd: each resource's `ValueCodec` (storage/objects/codec.ts).
 *
 * Written (measured by running the reference and reading its etcd values):
 *   - built-in kinds in `--storage-media-type` (default protobuf in the `k8s\0` envelope, the
 *     API's own framing), in the reference's storage version: the served storage version
 *     except where the kind names another (`encodedVersion`: resource.k8s.io is still stored
 *     as v1beta2 and VolumeAttributesClasses as v1beta1, so that a 1.33 server can read them back);
 *   - CustomResourceDefinitions as JSON in apiextensions.k8s.io/v1beta1, APIServices as JSON,
 *     whatever the flag (their servers are built with a JSON storage codec);
 *   - custom resources as JSON with their keys sorted, as Go writes unstructured objects.
 * JSON values end in a newline and escape `<`, `>`, `&`, U+2028 and U+2029, as Go's encoder does.
 *
 * Read: protobuf, JSON, YAML and CBOR values alike (the reference reads them all whatever its
 * flag says, and values written before a change of `--storage-media-type` stay as they are
 * until written again), and a built-in kind stored in another version than capstan keeps in
 * memory is converted on read, as the reference decodes to its internal version. A built-in
 * kind's defaults are applied to what is read, as the reference's decoder applies them: a value
 * its registry stored without a field it defaults (a claim's `status.phase`, which it resets on
 * create) or with one of a pair of fields its conversion keeps in step (a node's `podCIDR`
 * without `podCIDRs`) reads the same through both servers.
 */
import { parse as parseYaml } from 'yaml';
import { goStyleYaml } from './go-style-yaml';
import type { ValueCodec } from '../../storage/objects/codec';
import type { StorageMediaType } from '../config/storage-media-type';
import type { KubeObject } from '../../api/objects';
import { crdFromV1beta1, crdToV1beta1, CRD_V1BETA1 } from '../registry/conversion/crd-v1beta1';
import { groupVersionString, type GroupVersion } from '../../api/identity';
import { encodedGroupVersion, storageGroupVersion, type ResourceType } from '../registry/types';
import { decodeCbor, SELF_DESCRIBED_CBOR } from './cbor';
import { JSON_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE, YAML_MEDIA_TYPE } from './media-type';
import type { JsonObject } from './protobuf';
import { goJSONEscaped } from '../../api/go-quote';
import { compareUtf8 } from '../string-order';
import { markedIfIndexKeyedMetadata, markedIfIndexKeys } from '../json/go-map-order';
import { sortedJson } from '../json/value';
import { shareFieldSetsOf } from './shared-field-sets';
import { decodeObject as decodeEnvelope, encodeEnvelope, messageNameFor, PROTOBUF_MAGIC } from './protobuf-envelope';

/** Groups whose servers store JSON whatever `--storage-media-type` says. */
const JSON_ONLY_GROUPS = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

export function storageValueCodec(type: ResourceType, mediaType: StorageMediaType): ValueCodec {
  if (type.protobuf === false) return CUSTOM_RESOURCE_CODEC;
  const memory = groupVersionString(storageGroupVersion(type));
  const isCRD = type.group === 'apiextensions.k8s.io' && type.resource === 'customresourcedefinitions';
  const stored = groupVersionString(encodedGroupVersion(type));
  const format = JSON_ONLY_GROUPS.has(type.group) ? JSON_MEDIA_TYPE : mediaType;
  if (format === PROTOBUF_MEDIA_TYPE && messageNameFor(stored, type.kind) === undefined) {
    throw new Error(`${stored}, Kind=${type.kind} has no protobuf form to store`);
  }

  const toStored = (object: KubeObject): KubeObject => {
    if (isCRD) return crdToV1beta1(object);
    if (object.apiVersion === stored && object.kind === type.kind) return object;
    return { ...convertNow(object, encodedGroupVersion(type)), apiVersion: stored, kind: type.kind };
  };
  const toMemory = (object: KubeObject): KubeObject => {
    if (object.apiVersion === memory) return object;
    if (isCRD && object.apiVersion === CRD_V1BETA1) return crdFromV1beta1(object);
    return { ...convertNow(object, storageGroupVersion(type)), apiVersion: memory, kind: type.kind };
  };
  /** Built-in conversions answer at once; only a custom resource's webhook would not, and those are not built in. */
  const convertNow = (object: KubeObject, to: GroupVersion): KubeObject => {
    if (type.convert === undefined) return object;
    const converted = type.convert(object, to);
    if (converted instanceof Promise)
      throw new Error(`${type.kind} cannot be converted from ${String(object.apiVersion)} for the store`);
    return converted;
  };
  const memoryVersion = storageGroupVersion(type).version;
  return {
    encode: (object) => encodeAs(format, toStored(object)),
    decode: (value) => {
      const object = toMemory(decodeAny(value));
      type.strategy.applyDefaults?.(object, memoryVersion);
      return markedIfIndexKeyedMetadata(object);
    },
  };
}

/**
 * Custom resources: sorted JSON, read in whatever version they were stored (conversion happens
 * when served). The reference holds them as maps, and Go writes a map's keys sorted wherever it
 * writes one, so the object read back is served as it is: its keys are already in that order.
 */
const CUSTOM_RESOURCE_CODEC: ValueCodec = {
  encode: (object) => goJson(sortedJson(object)),
  decode: (value) => {
    const { object, text } = decodeStored(value);
    return withResourceVersionSlot(text === undefined ? object : markedIfIndexKeys(object, text));
  },
};

/**
 * The stored metadata never holds `resourceVersion` (the key's revision is stamped on read,
 * which would add it last): an empty one is put where the sorted map has it, to be filled in.
 */
function withResourceVersionSlot(object: KubeObject): KubeObject {
  if (typeof object.metadata !== 'object' || object.metadata === null) return object;
  const metadata: Record<string, unknown> = {};
  let placed = false;
  for (const [key, member] of Object.entries(object.metadata)) {
    if (!placed && compareUtf8(key, 'resourceVersion') > 0) {
      metadata.resourceVersion = '';
      placed = true;
    }
    metadata[key] = member;
  }
  if (!placed) metadata.resourceVersion = '';
  object.metadata = metadata as KubeObject['metadata'];
  return object;
}

function encodeAs(format: StorageMediaType, object: KubeObject): Buffer {
  switch (format) {
    case PROTOBUF_MEDIA_TYPE:
      return encodeEnvelope(object as unknown as JsonObject);
    case YAML_MEDIA_TYPE:
      return Buffer.from(goStyleYaml(object));
    case JSON_MEDIA_TYPE:
      return goJson(JSON.stringify(object));
  }
}

/**
 * A stored object is served as read: the reference prints the nil lists it decodes as null. It
 * is never changed in place, so its FieldsV1 trees can be shared.
 */
const STORED = { nilListsAsNull: true, sharedFieldSets: true };

/** A value in any of the encodings a reference server may have written, by its first bytes. */
export function decodeAny(value: Buffer): KubeObject {
  return decodeStored(value).object;
}

/** A stored value decoded, with its text where it is JSON or YAML (read once, for checks of the text). */
function decodeStored(value: Buffer): { object: KubeObject; text?: string } {
  if (value.subarray(0, PROTOBUF_MAGIC.length).equals(PROTOBUF_MAGIC))
    return { object: decodeEnvelope(value, STORED) as unknown as KubeObject };
  const decoded = decodeWhole(value);
  shareFieldSetsOf(decoded.object);
  return decoded;
}

/** A value in one of the encodings decoded whole rather than field by field. */
function decodeWhole(value: Buffer): { object: KubeObject; text?: string } {
  if (value.subarray(0, SELF_DESCRIBED_CBOR.length).equals(SELF_DESCRIBED_CBOR))
    return { object: decodeCbor(value) as unknown as KubeObject };
  const text = value.toString('utf8');
  if (text.trimStart().startsWith('{')) return { object: JSON.parse(text) as KubeObject, text };
  const parsed: unknown = parseYaml(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(
      `couldn't get version/kind; json parse error: ${JSON.stringify(text.slice(0, 40))} is not an object`,
    );
  }
  return { object: parsed as KubeObject, text };
}

/** JSON text as Go's encoder ends it: HTML-safe escapes and a final newline. */
function goJson(text: string): Buffer {
  return Buffer.from(`${goJSONEscaped(text)}\n`);
}
