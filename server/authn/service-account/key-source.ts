/**
 * Where the keys that verify service-account tokens come from, as the reference's
 * PublicKeysGetter: the key files (fixed for the life of the server) or an external signer's
 * FetchKeys (refreshed). The authenticator asks for the keys of a token's `kid`; the issuer's
 * discovery documents list the published ones, cacheable for as long as the source says.
 */
import type { VerifyingKey } from './keys';

export interface ServiceAccountKeySource {
  /** The keys that may have signed a token whose header names `kid` (every key for ''); may ask the signer again. */
  keysFor(kid: string): Promise<readonly VerifyingKey[]>;
  /** The keys `/openid/v1/jwks` lists. */
  published(): readonly VerifyingKey[];
  /** How long clients may cache the discovery documents. */
  cacheMaxAgeSeconds(): number;
}

/** The reference's max-age for documents built from key files. */
const STATIC_CACHE_MAX_AGE_SECONDS = 3600;

export function staticKeySource(keys: readonly VerifyingKey[]): ServiceAccountKeySource {
  return {
    keysFor: (kid) => Promise.resolve(kid === '' ? keys : keys.filter((key) => key.kid === kid)),
    published: () => keys,
    cacheMaxAgeSeconds: () => STATIC_CACHE_MAX_AGE_SECONDS,
  };
}
