/**
 * A KMS v1 plugin served by the test on a unix socket with @grpc/grpc-js: the service
 * `v1beta1.KeyManagementService` (k8s.io/kms/apis/v1beta1), its messages encoded by protobufjs
 * from the API's proto text, apart from capstan's hand encoding. It seals what it is given (the
 * DEKs) with AES-256-GCM under its own key encryption key, so `unwrap` lets the test open a
 * stored value by itself, and `wrap` makes one as another server would have. `version` is what Version answers; `failing` makes Encrypt and Decrypt
 * answer an error.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { parse } from 'protobufjs';
import { bindUnixSocket, unaryMethod } from './grpc-unix-server';

const PROTO = `
syntax = "proto3";
package v1beta1;
message VersionRequest { string version = 1; }
message VersionResponse { string version = 1; string runtime_name = 2; string runtime_version = 3; }
message DecryptRequest { string version = 1; bytes cipher = 2; }
message DecryptResponse { bytes plain = 1; }
message EncryptRequest { string version = 1; bytes plain = 2; }
message EncryptResponse { bytes cipher = 1; }
`;

const root = parse(PROTO, { keepCase: true }).root;
const type = (name: string) => root.lookupType(`v1beta1.${name}`);
const method = <Req, Res>(name: string, request: string, response: string) =>
  unaryMethod<Req, Res>(`/v1beta1.KeyManagementService/${name}`, type(request), type(response));

export interface TestKmsV1Plugin {
  readonly socketPath: string;
  /** What Version answers: `v1beta1` unless a test says otherwise. */
  version: string;
  /** When set, Encrypt and Decrypt answer this gRPC status. */
  failing: { code: grpc.status; details: string } | undefined;
  /** Seals as Encrypt does. */
  wrap(plain: Buffer): Buffer;
  /** Opens what Encrypt sealed. */
  unwrap(cipher: Buffer): Buffer;
  readonly calls: { Version: number; Encrypt: number; Decrypt: number };
  /** The `version` field of the requests, as received. */
  readonly requestVersions: string[];
  stop(): Promise<void>;
}

export async function startKmsV1Plugin(socketPath: string): Promise<TestKmsV1Plugin> {
  const kek = randomBytes(32);
  const calls = { Version: 0, Encrypt: 0, Decrypt: 0 };
  const requestVersions: string[] = [];
  const seal = (plain: Buffer) => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', kek, nonce);
    return Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  };
  const unwrap = (sealed: Buffer) => {
    const decipher = createDecipheriv('aes-256-gcm', kek, sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
  };
  const server = new grpc.Server();
  const plugin: TestKmsV1Plugin = {
    socketPath,
    version: 'v1beta1',
    failing: undefined,
    wrap: seal,
    unwrap,
    calls,
    requestVersions,
    stop: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
  type Call<Req> = grpc.ServerUnaryCall<Req, object>;
  server.addService(
    {
      Version: method('Version', 'VersionRequest', 'VersionResponse'),
      Encrypt: method('Encrypt', 'EncryptRequest', 'EncryptResponse'),
      Decrypt: method('Decrypt', 'DecryptRequest', 'DecryptResponse'),
    },
    {
      Version: (call: Call<{ version: string }>, done: grpc.sendUnaryData<object>) => {
        calls.Version++;
        requestVersions.push(call.request.version);
        done(null, { version: plugin.version, runtime_name: 'test-kms', runtime_version: '0.0.1' });
      },
      Encrypt: (call: Call<{ version: string; plain: Buffer }>, done: grpc.sendUnaryData<object>) => {
        calls.Encrypt++;
        requestVersions.push(call.request.version);
        if (plugin.failing !== undefined) done(plugin.failing);
        else done(null, { cipher: seal(call.request.plain) });
      },
      Decrypt: (call: Call<{ version: string; cipher: Buffer }>, done: grpc.sendUnaryData<object>) => {
        calls.Decrypt++;
        requestVersions.push(call.request.version);
        if (plugin.failing !== undefined) {
          done(plugin.failing);
          return;
        }
        try {
          done(null, { plain: unwrap(call.request.cipher) });
        } catch (error) {
          done({ code: grpc.status.INVALID_ARGUMENT, details: (error as Error).message });
        }
      },
    },
  );
  await bindUnixSocket(server, socketPath);
  return plugin;
}
