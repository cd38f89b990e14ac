/**
 * A KMS v2 plugin served by the test on a unix socket with @grpc/grpc-js (a real gRPC server,
 * so capstan's own gRPC framing is checked against another implementation). It seals DEKs
 * with AES-256-GCM under a key encryption key per key ID; `rotate` switches the current key ID,
 * as a real plugin does when its KMS key is rotated. Messages are encoded by protobufjs from the
 * plugin API's proto text (k8s.io/kms/apis/v2), apart from capstan's hand encoding.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { parse, type Type } from 'protobufjs';
import { bindUnixSocket, unaryMethod } from './grpc-unix-server';

const PROTO = `
syntax = "proto3";
package v2;
message StatusRequest {}
message StatusResponse { string version = 1; string healthz = 2; string key_id = 3; }
message DecryptRequest { bytes ciphertext = 1; string uid = 2; string key_id = 3; map<string, bytes> annotations = 4; }
message DecryptResponse { bytes plaintext = 1; }
message EncryptRequest { bytes plaintext = 1; string uid = 2; }
message EncryptResponse { bytes ciphertext = 1; string key_id = 2; map<string, bytes> annotations = 3; }
message EncryptedObject { bytes encryptedData = 1; string keyID = 2; bytes encryptedDEKSource = 3; map<string, bytes> annotations = 4; int32 encryptedDEKSourceType = 5; }
`;

const root = parse(PROTO, { keepCase: true }).root;
export const messageType = (name: string): Type => root.lookupType(`v2.${name}`);

/** Annotation keys must be domain names (the reference refuses others). */
export const ANNOTATION = 'kek-version.kms.example.com';

export interface TestKmsPlugin {
  readonly socketPath: string;
  /** The current key ID; `rotate` makes a new key encryption key current. */
  keyId: string;
  rotate(keyId: string): void;
  /** The key encryption key of a key ID, for the test's own decryption of a stored DEK. */
  unwrap(ciphertext: Buffer, keyId: string): Buffer;
  readonly calls: { Status: number; Encrypt: number; Decrypt: number };
  stop(): Promise<void>;
}

export async function startKmsPlugin(socketPath: string, keyId: string): Promise<TestKmsPlugin> {
  const keys = new Map<string, Buffer>([[keyId, randomBytes(32)]]);
  const calls = { Status: 0, Encrypt: 0, Decrypt: 0 };
  const seal = (plaintext: Buffer, id: string) => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keys.get(id)!, nonce);
    return Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  };
  const unwrap = (ciphertext: Buffer, id: string) => {
    const key = keys.get(id);
    if (key === undefined) throw new Error(`unknown key id ${id}`);
    const decipher = createDecipheriv('aes-256-gcm', key, ciphertext.subarray(0, 12));
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
    return Buffer.concat([decipher.update(ciphertext.subarray(12, ciphertext.length - 16)), decipher.final()]);
  };
  const plugin: TestKmsPlugin = {
    socketPath,
    keyId,
    rotate(next) {
      keys.set(next, randomBytes(32));
      plugin.keyId = next;
    },
    unwrap,
    calls,
    stop: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
  const server = new grpc.Server();
  server.addService(
    {
      Status: unaryMethod(
        '/v2.KeyManagementService/Status',
        messageType('StatusRequest'),
        messageType('StatusResponse'),
      ),
      Encrypt: unaryMethod(
        '/v2.KeyManagementService/Encrypt',
        messageType('EncryptRequest'),
        messageType('EncryptResponse'),
      ),
      Decrypt: unaryMethod(
        '/v2.KeyManagementService/Decrypt',
        messageType('DecryptRequest'),
        messageType('DecryptResponse'),
      ),
    },
    {
      Status: (_call: unknown, done: grpc.sendUnaryData<object>) => {
        calls.Status++;
        done(null, { version: 'v2', healthz: 'ok', key_id: plugin.keyId });
      },
      Encrypt: (call: grpc.ServerUnaryCall<{ plaintext: Buffer }, object>, done: grpc.sendUnaryData<object>) => {
        calls.Encrypt++;
        done(null, {
          ciphertext: seal(call.request.plaintext, plugin.keyId),
          key_id: plugin.keyId,
          annotations: { [ANNOTATION]: Buffer.from(plugin.keyId) },
        });
      },
      Decrypt: (
        call: grpc.ServerUnaryCall<{ ciphertext: Buffer; key_id: string }, object>,
        done: grpc.sendUnaryData<object>,
      ) => {
        calls.Decrypt++;
        try {
          done(null, { plaintext: unwrap(call.request.ciphertext, call.request.key_id) });
        } catch (error) {
          done({ code: grpc.status.INVALID_ARGUMENT, details: (error as Error).message });
        }
      },
    },
  );
  await bindUnixSocket(server, socketPath);
  return plugin;
}
