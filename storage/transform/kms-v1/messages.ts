/**
 * The protobuf messages of the KMS v1 plugin API `v1beta1.KeyManagementService`
 * (k8s.io/kms/apis/v1beta1), encoded by hand (storage/grpc/message-fields.ts). Every request carries the API
 * version; the answers carry the bytes alone.
 */
import { Writer } from 'protobufjs/minimal';
import { bytesField, readFields, stringField } from '../../grpc/message-fields';

export interface VersionResponse {
  readonly version: string;
  readonly runtimeName: string;
  readonly runtimeVersion: string;
}

export function encodeVersionRequest(version: string): Buffer {
  const writer = Writer.create();
  stringField(writer, 1, version);
  return Buffer.from(writer.finish());
}

/** EncryptRequest {version = 1, plain = 2} and DecryptRequest {version = 1, cipher = 2} have one shape. */
export function encodeDataRequest(request: { version: string; data: Buffer }): Buffer {
  const writer = Writer.create();
  stringField(writer, 1, request.version);
  bytesField(writer, 2, request.data);
  return Buffer.from(writer.finish());
}

export function decodeVersionResponse(data: Uint8Array): VersionResponse {
  let version = '';
  let runtimeName = '';
  let runtimeVersion = '';
  readFields(data, (field, reader) => {
    if (field === 1) version = reader.string();
    else if (field === 2) runtimeName = reader.string();
    else if (field === 3) runtimeVersion = reader.string();
    else return false;
    return true;
  });
  return { version, runtimeName, runtimeVersion };
}

/** EncryptResponse {cipher = 1} and DecryptResponse {plain = 1}: the one bytes field. */
export function decodeDataResponse(data: Uint8Array): Buffer {
  let bytes = Buffer.alloc(0);
  readFields(data, (field, reader) => {
    if (field !== 1) return false;
    bytes = Buffer.from(reader.bytes());
    return true;
  });
  return bytes;
}
