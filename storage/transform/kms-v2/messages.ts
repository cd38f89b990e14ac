/**
 * The protobuf messages of KMS v2, encoded by hand (storage/grpc/message-fields.ts): the plugin API
 * `v2.KeyManagementService` (k8s.io/kms/apis/v2) and the `EncryptedObject` stored after
 * `k8s:enc:kms:v2:<name>:` (apiserver's kmsv2/v2).
 */
import { Writer, type Reader } from 'protobufjs/minimal';
import { bytesField, LENGTH_DELIMITED, readFields, stringField, VARINT } from '../../grpc/message-fields';

/** How the DEK source of an EncryptedObject makes the data key. */
export enum EncryptedDEKSourceType {
  /** The source is the AES-256-GCM key itself (values written before 1.29). */
  AES_GCM_KEY = 0,
  /** The source is a seed; each value's key is HKDF-SHA256(seed, 32 random bytes stored first). */
  HKDF_SHA256_XNONCE_AES_GCM_SEED = 1,
}

export interface EncryptedObject {
  readonly encryptedData: Buffer;
  readonly keyID: string;
  readonly encryptedDEKSource: Buffer;
  readonly annotations: ReadonlyMap<string, Buffer>;
  readonly encryptedDEKSourceType: EncryptedDEKSourceType;
}

export interface StatusResponse {
  readonly version: string;
  readonly healthz: string;
  readonly keyID: string;
}

export interface EncryptResponse {
  readonly ciphertext: Buffer;
  readonly keyID: string;
  readonly annotations: ReadonlyMap<string, Buffer>;
}

function mapField(writer: Writer, field: number, map: ReadonlyMap<string, Buffer>): void {
  for (const [key, value] of map) {
    writer.uint32((field << 3) | LENGTH_DELIMITED).fork();
    stringField(writer, 1, key);
    bytesField(writer, 2, value);
    writer.ldelim();
  }
}

function readMapEntry(reader: Reader, into: Map<string, Buffer>): void {
  const end = reader.uint32() + reader.pos;
  let key = '';
  let value = Buffer.alloc(0);
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag >>> 3 === 1) key = reader.string();
    else if (tag >>> 3 === 2) value = Buffer.from(reader.bytes());
    else reader.skipType(tag & 7);
  }
  into.set(key, value);
}

export function encodeEncryptedObject(object: EncryptedObject): Buffer {
  const writer = Writer.create();
  bytesField(writer, 1, object.encryptedData);
  stringField(writer, 2, object.keyID);
  bytesField(writer, 3, object.encryptedDEKSource);
  mapField(writer, 4, object.annotations);
  if (object.encryptedDEKSourceType !== 0) writer.uint32((5 << 3) | VARINT).int32(object.encryptedDEKSourceType);
  return Buffer.from(writer.finish());
}

export function decodeEncryptedObject(data: Uint8Array): EncryptedObject {
  let encryptedData = Buffer.alloc(0);
  let keyID = '';
  let encryptedDEKSource = Buffer.alloc(0);
  const annotations = new Map<string, Buffer>();
  let encryptedDEKSourceType = 0;
  readFields(data, (field, reader) => {
    if (field === 1) encryptedData = Buffer.from(reader.bytes());
    else if (field === 2) keyID = reader.string();
    else if (field === 3) encryptedDEKSource = Buffer.from(reader.bytes());
    else if (field === 4) readMapEntry(reader, annotations);
    else if (field === 5) encryptedDEKSourceType = reader.int32();
    else return false;
    return true;
  });
  return { encryptedData, keyID, encryptedDEKSource, annotations, encryptedDEKSourceType };
}

export function encodeEncryptRequest(request: { plaintext: Buffer; uid: string }): Buffer {
  const writer = Writer.create();
  bytesField(writer, 1, request.plaintext);
  stringField(writer, 2, request.uid);
  return Buffer.from(writer.finish());
}

export function encodeDecryptRequest(request: {
  ciphertext: Buffer;
  uid: string;
  keyID: string;
  annotations: ReadonlyMap<string, Buffer>;
}): Buffer {
  const writer = Writer.create();
  bytesField(writer, 1, request.ciphertext);
  stringField(writer, 2, request.uid);
  stringField(writer, 3, request.keyID);
  mapField(writer, 4, request.annotations);
  return Buffer.from(writer.finish());
}

export function decodeStatusResponse(data: Uint8Array): StatusResponse {
  let version = '';
  let healthz = '';
  let keyID = '';
  readFields(data, (field, reader) => {
    if (field === 1) version = reader.string();
    else if (field === 2) healthz = reader.string();
    else if (field === 3) keyID = reader.string();
    else return false;
    return true;
  });
  return { version, healthz, keyID };
}

export function decodeEncryptResponse(data: Uint8Array): EncryptResponse {
  let ciphertext = Buffer.alloc(0);
  let keyID = '';
  const annotations = new Map<string, Buffer>();
  readFields(data, (field, reader) => {
    if (field === 1) ciphertext = Buffer.from(reader.bytes());
    else if (field === 2) keyID = reader.string();
    else if (field === 3) readMapEntry(reader, annotations);
    else return false;
    return true;
  });
  return { ciphertext, keyID, annotations };
}

export function decodeDecryptResponse(data: Uint8Array): Buffer {
  let plaintext = Buffer.alloc(0);
  readFields(data, (field, reader) => {
    if (field !== 1) return false;
    plaintext = Buffer.from(reader.bytes());
    return true;
  });
  return plaintext;
}
