/**
 * The protobuf messages of the external JWT signer API, `externaljwt.v1.ExternalJWTSigner`
 * (k8s.io/externaljwt/apis/v1), encoded by hand as the KMS plugin's are: the requests are empty
 * but for Sign's claims, and the three responses are small.
 */
import { Writer } from 'protobufjs/minimal';
import { readFields, stringField } from '../../../storage/grpc/message-fields';

export const EXTERNAL_JWT_SERVICE = '/v1.ExternalJWTSigner';

export interface SignJwtResponse {
  /** The JWS protected header, base64url without padding. */
  readonly header: string;
  /** The signature over `<header>.<claims>`, base64url without padding. */
  readonly signature: string;
}

export interface ExternalKey {
  readonly keyId: string;
  /** DER SubjectPublicKeyInfo. */
  readonly key: Buffer;
  readonly excludeFromOidcDiscovery: boolean;
}

export interface FetchKeysResponse {
  readonly keys: readonly ExternalKey[];
  /** Seconds since the epoch; absent when the signer sent none. */
  readonly dataTimestamp?: { readonly seconds: number; readonly nanos: number };
  readonly refreshHintSeconds: number;
}

export interface MetadataResponse {
  readonly maxTokenExpirationSeconds: number;
}

/** `claims` is the base64url (unpadded) JSON payload to sign. */
export function encodeSignJwtRequest(claims: string): Buffer {
  const writer = Writer.create();
  stringField(writer, 1, claims);
  return Buffer.from(writer.finish());
}

export function decodeSignJwtResponse(data: Uint8Array): SignJwtResponse {
  let header = '';
  let signature = '';
  readFields(data, (field, reader) => {
    if (field === 1) header = reader.string();
    else if (field === 2) signature = reader.string();
    else return false;
    return true;
  });
  return { header, signature };
}

function decodeKey(data: Uint8Array): ExternalKey {
  let keyId = '';
  let key = Buffer.alloc(0);
  let excludeFromOidcDiscovery = false;
  readFields(data, (field, reader) => {
    if (field === 1) keyId = reader.string();
    else if (field === 2) key = Buffer.from(reader.bytes());
    else if (field === 3) excludeFromOidcDiscovery = reader.bool();
    else return false;
    return true;
  });
  return { keyId, key, excludeFromOidcDiscovery };
}

function decodeTimestamp(data: Uint8Array): { seconds: number; nanos: number } {
  let seconds = 0;
  let nanos = 0;
  readFields(data, (field, reader) => {
    if (field === 1) seconds = Number(reader.int64());
    else if (field === 2) nanos = reader.int32();
    else return false;
    return true;
  });
  return { seconds, nanos };
}

export function decodeFetchKeysResponse(data: Uint8Array): FetchKeysResponse {
  const keys: ExternalKey[] = [];
  let dataTimestamp: FetchKeysResponse['dataTimestamp'];
  let refreshHintSeconds = 0;
  readFields(data, (field, reader) => {
    if (field === 1) keys.push(decodeKey(reader.bytes()));
    else if (field === 2) dataTimestamp = decodeTimestamp(reader.bytes());
    else if (field === 3) refreshHintSeconds = Number(reader.int64());
    else return false;
    return true;
  });
  return { keys, dataTimestamp, refreshHintSeconds };
}

export function decodeMetadataResponse(data: Uint8Array): MetadataResponse {
  let maxTokenExpirationSeconds = 0;
  readFields(data, (field, reader) => {
    if (field !== 1) return false;
    maxTokenExpirationSeconds = Number(reader.int64());
    return true;
  });
  return { maxTokenExpirationSeconds };
}
