/**
 * The public keys of an external JWT signer, as the reference's key cache keeps them: filled
 * from FetchKeys at start (the start fails without them), fetched again when the signer's
 * refresh hint comes due (10 s later on a failure, keeping the stale set), and at once when a
 * token names a key id the cache does not hold, so that a key the signer has just rotated to
 * verifies without waiting. Concurrent refreshes share one FetchKeys call.
 */
import { createPublicKey } from 'node:crypto';
import { goQuote } from '../../../api/go-quote';
import { decodeFetchKeysResponse, type FetchKeysResponse } from './external-jwt-messages';
import { algorithmOf, type VerifyingKey } from './keys';
import type { ServiceAccountKeySource } from './key-source';

/** How soon a failed periodic refresh is tried again. */
const FALLBACK_REFRESH_MS = 10_000;
/** Node fires a longer timer at once; a hint beyond it (almost 25 days) is refreshed that much sooner. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;
/** The reference's key ids are at most this long. */
const MAX_KEY_ID_LENGTH = 1024;

interface CachedKey extends VerifyingKey {
  readonly excludeFromOidcDiscovery: boolean;
}

interface KeySet {
  readonly keys: readonly CachedKey[];
  readonly nextRefreshAt: number;
  /** The signer's data timestamp, in seconds. */
  readonly dataTimestampSeconds?: number;
}

export interface ExternalKeyCache extends ServiceAccountKeySource {
  /** The keys of `kid`, with whether discovery leaves them out. */
  cachedKeysFor(kid: string): Promise<readonly CachedKey[]>;
  /** The first fetch; rejects with why the keys could not be had. */
  fill(timeoutMs: number): Promise<void>;
  /** Refreshes at the signer's hint from now on. */
  scheduleRefresh(timeoutMs: number): void;
  stop(): void;
}

export function externalKeyCache(options: {
  /** Calls FetchKeys, answering its response message. */
  readonly fetchKeys: (timeoutMs: number) => Promise<Buffer>;
  /** Told the outcome of every sync (the fetch metrics). */
  readonly recordFetch: (error: unknown, dataTimestampSeconds?: number) => void;
  /** Bounds a refresh asked for by a token with an unknown key id. */
  readonly lookupTimeoutMs: number;
  readonly log: (message: string) => void;
}): ExternalKeyCache {
  let current: KeySet = { keys: [], nextRefreshAt: Date.now() };
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const sync = (timeoutMs: number): Promise<void> => {
    inFlight ??= keySet(options.fetchKeys, timeoutMs)
      .then(
        (next) => {
          options.recordFetch(undefined, next.dataTimestampSeconds);
          current = next;
        },
        (error: unknown) => {
          options.recordFetch(error);
          throw error;
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  const find = (kid: string): readonly CachedKey[] | undefined => {
    if (current.keys.length === 0) return undefined;
    if (kid === '') return current.keys;
    const matching = current.keys.filter((key) => key.kid === kid);
    return matching.length > 0 ? matching : undefined;
  };

  const cachedKeysFor = async (kid: string): Promise<readonly CachedKey[]> => {
    const cached = find(kid);
    if (cached !== undefined) return cached;
    try {
      await sync(options.lookupTimeoutMs);
    } catch (error) {
      options.log(`Error while syncing keys: ${(error as Error).message}`);
      return [];
    }
    return find(kid) ?? [];
  };

  const schedule = (delayMs: number, timeoutMs: number) => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        sync(timeoutMs).then(
          () => schedule(current.nextRefreshAt - Date.now(), timeoutMs),
          (error: Error) => {
            options.log(`when syncing supported public keys(Stale set of keys will be supported): ${error.message}`);
            schedule(FALLBACK_REFRESH_MS, timeoutMs);
          },
        );
      },
      Math.min(MAX_TIMER_DELAY_MS, Math.max(0, delayMs)),
    );
    timer.unref();
  };

  return {
    cachedKeysFor,
    keysFor: cachedKeysFor,
    published: () => current.keys.filter((key) => !key.excludeFromOidcDiscovery),
    cacheMaxAgeSeconds: () => Math.max(0, Math.trunc((current.nextRefreshAt - Date.now()) / 1000)),
    async fill(timeoutMs) {
      try {
        await sync(timeoutMs);
      } catch (error) {
        throw new Error(`while performing initial cache fill: ${(error as Error).message}`, { cause: error });
      }
    },
    scheduleRefresh(timeoutMs) {
      schedule(current.nextRefreshAt - Date.now(), timeoutMs);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

async function keySet(fetchKeys: (timeoutMs: number) => Promise<Buffer>, timeoutMs: number): Promise<KeySet> {
  let response: FetchKeysResponse;
  try {
    response = decodeFetchKeysResponse(await fetchKeys(timeoutMs));
  } catch (error) {
    throw fetchFailure(`while getting externally supported jwt signing keys: ${(error as Error).message}`, error);
  }
  return {
    keys: validKeys(response),
    nextRefreshAt: Date.now() + response.refreshHintSeconds * 1000,
    dataTimestampSeconds: response.dataTimestamp && response.dataTimestamp.seconds + response.dataTimestamp.nanos / 1e9,
  };
}

/** The reference's checks of a FetchKeys answer, in its order and words. */
function validKeys(response: FetchKeysResponse): CachedKey[] {
  if (response.refreshHintSeconds <= 0)
    throw fetchFailure(`found invalid refresh hint (${response.refreshHintSeconds}s)`);
  if (response.keys.length === 0) throw fetchFailure('found no keys');
  if (response.dataTimestamp === undefined) throw fetchFailure('invalid data timestamp: invalid nil Timestamp');
  return response.keys.map((external) => {
    if (external.keyId.length === 0 || external.keyId.length > MAX_KEY_ID_LENGTH)
      throw fetchFailure(`found invalid public key id ${goQuote(external.keyId)}`);
    if (external.key.length === 0) throw fetchFailure('found empty public key');
    let key;
    let alg;
    try {
      key = createPublicKey({ key: external.key, format: 'der', type: 'spki' });
      alg = algorithmOf(key);
    } catch (error) {
      throw fetchFailure(`while parsing external public keys: ${(error as Error).message}`);
    }
    return { kid: external.keyId, alg, key, excludeFromOidcDiscovery: external.excludeFromOidcDiscovery };
  });
}

function fetchFailure(message: string, cause?: unknown): Error {
  return new Error(`while fetching token verification keys: ${message}`, { cause });
}
