/**
 * An external JWT signer (`externaljwt.v1.ExternalJWTSigner`, k8s.io/externaljwt) served by the
 * test on a unix socket with @grpc/grpc-js, as `--service-account-signing-endpoint` expects one:
 * it holds the private keys, signs the claims the server sends, and hands out the public keys.
 * Messages are encoded by protobufjs from the API's proto text, apart from capstan's hand
 * encoding. `rotate` makes a new key current while the old one still verifies, as a signer does
 * when it rotates; `stop` takes it down.
 */
import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { parse, type Type } from 'protobufjs';
import { bindUnixSocket, unaryMethod } from './grpc-unix-server';

// google.protobuf.Timestamp is declared here under the same field numbers: the wire is the same.
const PROTO = `
syntax = "proto3";
package v1;
message SignJWTRequest { string claims = 1; }
message SignJWTResponse { string header = 1; string signature = 2; }
message FetchKeysRequest {}
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
message Key { string key_id = 1; bytes key = 2; bool exclude_from_oidc_discovery = 3; }
message FetchKeysResponse { repeated Key keys = 1; Timestamp data_timestamp = 2; int64 refresh_hint_seconds = 3; }
message MetadataRequest {}
message MetadataResponse { int64 max_token_expiration_seconds = 1; }
`;

const root = parse(PROTO, { keepCase: true }).root;
const messageType = (name: string): Type => root.lookupType(`v1.${name}`);

export interface SignerKey {
  readonly keyId: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly alg: 'RS256' | 'ES256';
  excludeFromOidcDiscovery: boolean;
}

export interface TestJwtSigner {
  readonly socketPath: string;
  /** Every key FetchKeys lists; the last one signs. */
  readonly keys: SignerKey[];
  readonly signingKey: SignerKey;
  /** Makes a new key (RSA unless `alg` says) current; the old ones stay listed. */
  rotate(keyId: string, alg?: SignerKey['alg']): SignerKey;
  refreshHintSeconds: number;
  maxTokenExpirationSeconds: number;
  /** What Sign answers instead of its own header or signature, to play a signer that errs. */
  override: { header?: string; signature?: string };
  /** The claims of every Sign call, decoded. */
  readonly signed: Record<string, unknown>[];
  readonly calls: { Sign: number; FetchKeys: number; Metadata: number };
  stop(): Promise<void>;
}

function keyPair(keyId: string, alg: SignerKey['alg']): SignerKey {
  const { privateKey } =
    alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { keyId, privateKey, publicKey: createPublicKey(privateKey), alg, excludeFromOidcDiscovery: false };
}

export async function startJwtSigner(
  socketPath: string,
  options: {
    keyId?: string;
    alg?: SignerKey['alg'];
    maxTokenExpirationSeconds?: number;
    /** The keys of a signer started before, as one restarted with its key store. */
    keys?: readonly SignerKey[];
  } = {},
): Promise<TestJwtSigner> {
  const keys = options.keys ? [...options.keys] : [keyPair(options.keyId ?? 'key-1', options.alg ?? 'RS256')];
  const calls = { Sign: 0, FetchKeys: 0, Metadata: 0 };
  const signed: Record<string, unknown>[] = [];
  let dataTimestamp = Math.floor(Date.now() / 1000);
  const signer: TestJwtSigner = {
    socketPath,
    keys,
    get signingKey() {
      return keys[keys.length - 1];
    },
    rotate(keyId, alg = 'RS256') {
      const key = keyPair(keyId, alg);
      keys.push(key);
      dataTimestamp += 1;
      return key;
    },
    refreshHintSeconds: 3600,
    maxTokenExpirationSeconds: options.maxTokenExpirationSeconds ?? 24 * 3600,
    override: {},
    signed,
    calls,
    stop: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
  const server = new grpc.Server();
  server.addService(
    {
      Sign: unaryMethod('/v1.ExternalJWTSigner/Sign', messageType('SignJWTRequest'), messageType('SignJWTResponse')),
      FetchKeys: unaryMethod(
        '/v1.ExternalJWTSigner/FetchKeys',
        messageType('FetchKeysRequest'),
        messageType('FetchKeysResponse'),
      ),
      Metadata: unaryMethod(
        '/v1.ExternalJWTSigner/Metadata',
        messageType('MetadataRequest'),
        messageType('MetadataResponse'),
      ),
    },
    {
      Sign: (call: grpc.ServerUnaryCall<{ claims: string }, object>, done: grpc.sendUnaryData<object>) => {
        calls.Sign++;
        signed.push(JSON.parse(Buffer.from(call.request.claims, 'base64url').toString()) as Record<string, unknown>);
        const key = signer.signingKey;
        const header = Buffer.from(JSON.stringify({ alg: key.alg, kid: key.keyId, typ: 'JWT' })).toString('base64url');
        const input = Buffer.from(`${header}.${call.request.claims}`);
        const signature =
          key.alg === 'RS256'
            ? sign('sha256', input, key.privateKey)
            : sign('sha256', input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
        done(null, {
          header: signer.override.header ?? header,
          signature: signer.override.signature ?? signature.toString('base64url'),
        });
      },
      FetchKeys: (_call: unknown, done: grpc.sendUnaryData<object>) => {
        calls.FetchKeys++;
        done(null, {
          keys: keys.map((key) => ({
            key_id: key.keyId,
            key: key.publicKey.export({ type: 'spki', format: 'der' }),
            exclude_from_oidc_discovery: key.excludeFromOidcDiscovery,
          })),
          data_timestamp: { seconds: dataTimestamp, nanos: 0 },
          refresh_hint_seconds: signer.refreshHintSeconds,
        });
      },
      Metadata: (_call: unknown, done: grpc.sendUnaryData<object>) => {
        calls.Metadata++;
        done(null, { max_token_expiration_seconds: signer.maxTokenExpirationSeconds });
      },
    },
  );
  await bindUnixSocket(server, socketPath);
  return signer;
}
