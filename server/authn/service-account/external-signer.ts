/**
 * `--service-account-signing-endpoint`: service-account tokens signed by an external JWT signer
 * (`externaljwt.v1.ExternalJWTSigner` on a unix socket) that holds the private keys, as the
 * reference's externaljwt plugin does it. The server sends the base64url claims; the signer
 * answers the protected header and the signature; the server checks the header (`typ` JWT, a
 * key id, one of the four algorithms, no other field, a key that discovery publishes) and
 * assembles the token. Its public keys come from the key cache.
 */
import type { Registry } from 'prom-client';
import { GrpcUnixClient } from '../../../storage/grpc/unix-client';
import type { TokenSigner } from './claims';
import {
  decodeMetadataResponse,
  decodeSignJwtResponse,
  encodeSignJwtRequest,
  EXTERNAL_JWT_SERVICE,
  type SignJwtResponse,
} from './external-jwt-messages';
import { externalKeyCache, type ExternalKeyCache } from './external-key-cache';
import { externalSignerMetrics } from './external-signer-metrics';

/** The reference's bound on the first key fetch at start and on each refresh. */
const KEY_SYNC_TIMEOUT_MS = 60_000;
/** The reference's bound on the Metadata call at start. */
const METADATA_TIMEOUT_MS = 10_000;
/**
 * The reference bounds a refresh that a token's unknown key id asks for by the request's
 * authentication (its token cache's shared 30 s lookup).
 */
const LOOKUP_TIMEOUT_MS = 30_000;
/** A Sign call outside any request deadline waits at most this: the reference's create handlers' 34 s. */
const SIGN_TIMEOUT_MS = 34_000;
/**
 * A Sign call within a request waits a little past its deadline, so that the request's timeout
 * stage answers first (504 Timeout), as the reference's timeout filter does for a signer that
 * does not answer.
 */
const SIGN_DEADLINE_GRACE_MS = 1_000;
const SIGNING_ALGORITHMS = new Set(['RS256', 'ES256', 'ES384', 'ES512']);
const HEADER_FIELDS = new Set(['alg', 'kid', 'typ']);
const MAX_KEY_ID_LENGTH = 1024;

export interface ExternalSigner extends TokenSigner {
  readonly keys: ExternalKeyCache;
  /** The longest lifetime the signer signs, in seconds. */
  readonly maxTokenExpirationSeconds: number;
  close(): void;
}

/** `@name` is an abstract socket, as Go dials it. */
export function signerSocketPath(endpoint: string): string {
  return endpoint.startsWith('@') ? `\0${endpoint.slice(1)}` : endpoint;
}

/**
 * Dials the signer and fills the key cache, then asks its metadata; rejects with the
 * reference's start-up message when either fails.
 */
export async function connectExternalSigner(options: {
  readonly endpoint: string;
  /** Where the `apiserver_externaljwt_*` metrics go. */
  readonly registry: Registry;
  readonly log?: (message: string) => void;
}): Promise<ExternalSigner> {
  const log = options.log ?? ((message: string) => console.error(message));
  const client = new GrpcUnixClient(signerSocketPath(options.endpoint));
  const metrics = externalSignerMetrics(options.registry);
  const call = async (name: string, request: Buffer, timeoutMs: number): Promise<Buffer> => {
    const method = `${EXTERNAL_JWT_SERVICE}/${name}`;
    const startedAt = performance.now();
    let failure: unknown;
    try {
      return await client.call({ method, request, timeoutMs });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      metrics.recordCall(method, (performance.now() - startedAt) / 1000, failure);
    }
  };
  const keys = externalKeyCache({
    fetchKeys: (timeoutMs) => call('FetchKeys', Buffer.alloc(0), timeoutMs),
    recordFetch: metrics.recordKeyFetch,
    lookupTimeoutMs: LOOKUP_TIMEOUT_MS,
    log,
  });
  const setupFailure = (error: unknown) => {
    client.close();
    return new Error(`while setting up external-jwt-signer: ${(error as Error).message}`);
  };
  try {
    await keys.fill(KEY_SYNC_TIMEOUT_MS);
  } catch (error) {
    throw setupFailure(new Error(`while initially filling key cache: ${(error as Error).message}`));
  }
  let maxTokenExpirationSeconds: number;
  try {
    const metadata = decodeMetadataResponse(await call('Metadata', Buffer.alloc(0), METADATA_TIMEOUT_MS));
    maxTokenExpirationSeconds = metadata.maxTokenExpirationSeconds;
  } catch (error) {
    throw setupFailure(error);
  }
  keys.scheduleRefresh(KEY_SYNC_TIMEOUT_MS);
  return {
    keys,
    maxTokenExpirationSeconds,
    async sign(claims, deadline) {
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      let failure: unknown;
      try {
        let response: SignJwtResponse;
        try {
          response = decodeSignJwtResponse(
            await call(
              'Sign',
              encodeSignJwtRequest(payload),
              deadline === undefined ? SIGN_TIMEOUT_MS : deadline - Date.now() + SIGN_DEADLINE_GRACE_MS,
            ),
          );
        } catch (error) {
          throw new Error(`while signing jwt: ${(error as Error).message}`, { cause: error });
        }
        const problem = await headerProblem(response.header, keys);
        if (problem !== undefined) throw new Error(`while validating header: ${problem}`);
        if (response.signature.length === 0) throw new Error('empty signature returned');
        return `${response.header}.${payload}.${response.signature}`;
      } catch (error) {
        failure = error;
        throw error;
      } finally {
        metrics.recordSign(failure);
      }
    },
    close() {
      keys.stop();
      client.close();
    },
  };
}

const BASE64URL_ALPHABET = /[A-Za-z0-9_-]/;

/** Where Go's unpadded base64url decoder stops: the first byte outside the alphabet, or a lone last one. */
function illegalBase64Byte(encoded: string): number | undefined {
  for (let index = 0; index < encoded.length; index++) if (!BASE64URL_ALPHABET.test(encoded[index])) return index;
  return encoded.length % 4 === 1 ? encoded.length - 1 : undefined;
}

/** The JSON type of a value, as Go's decoder names it in an UnmarshalTypeError. */
function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** What is wrong with the signer's header, in the reference's words; undefined when nothing. */
async function headerProblem(encoded: string, keys: ExternalKeyCache): Promise<string | undefined> {
  const badByte = illegalBase64Byte(encoded);
  if (badByte !== undefined) return `while unwrapping header: illegal base64 data at input byte ${badByte}`;
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch (error) {
    return `while parsing header JSON: ${(error as Error).message}`;
  }
  // Go decodes JSON null into the header struct as nothing at all.
  if (header === null) header = {};
  if (typeof header !== 'object' || Array.isArray(header))
    return 'while parsing header JSON: json: cannot unmarshal into a header object';
  const fields = header as Record<string, unknown>;
  const unknown = Object.keys(fields).find((name) => !HEADER_FIELDS.has(name));
  if (unknown !== undefined) return `while parsing header JSON: json: unknown field ${JSON.stringify(unknown)}`;
  for (const name of HEADER_FIELDS) {
    const value = fields[name];
    if (value !== undefined && value !== null && typeof value !== 'string')
      return `while parsing header JSON: json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field .${name} of type string`;
  }
  const text = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : '');
  if (text('typ') !== 'JWT') return 'bad type';
  const kid = text('kid');
  if (kid.length === 0) return 'key id missing';
  if (kid.length > MAX_KEY_ID_LENGTH) return 'key id longer than 1 kb';
  if (!SIGNING_ALGORITHMS.has(text('alg'))) return `bad signing algorithm ${JSON.stringify(text('alg'))}`;
  // The token must verify against what discovery tells relying parties.
  if ((await keys.cachedKeysFor(kid)).some((key) => key.excludeFromOidcDiscovery))
    return `key used for signing JWT (kid: ${kid}) is excluded from OIDC discovery docs`;
  return undefined;
}
