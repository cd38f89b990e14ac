/**
 * OpenID Connect issuers' keys, found through the discovery document and fetched over HTTPS
 * (verified with the configured CA, else the system roots), fetched again when a token names a
 * key not seen yet, so the provider can rotate keys.
 */
import { request } from 'node:https';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';

/** A token naming an unknown key refetches the keys at most this often (one fetch in flight at a time), so a rotation is seen at once and a flood of unknown key ids costs one fetch per second. */
const REFETCH_COOLDOWN_MS = 1_000;
const FETCH_TIMEOUT_MS = 10_000;

/** Fetches JSON over HTTPS, trusting `ca` when given. */
export function fetchJson(url: string, ca: string | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, timeout: FETCH_TIMEOUT_MS, headers: { Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if ((res.statusCode ?? 0) !== 200) return reject(new Error(`${url}: ${res.statusCode}`));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (error) {
          reject(new Error(`${url}: ${(error as Error).message}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${FETCH_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * The keys of an issuer found through its discovery document (at `discoveryUrl`, whose
 * `issuer` must be `issuer`), refetched on demand.
 */
export class IssuerKeys {
  private keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  private jwksUri: string | undefined;
  /** When a token's unknown key last made us fetch; the first fetch does not count, so a rotation right after start is seen. */
  private lastForcedFetch = 0;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly source: { readonly issuer: string; readonly discoveryUrl: string; readonly ca?: string },
  ) {}

  private async fetch(): Promise<void> {
    if (this.jwksUri === undefined) {
      const discovery = (await fetchJson(this.source.discoveryUrl, this.source.ca)) as {
        issuer?: string;
        jwks_uri?: string;
      };
      if (discovery.issuer !== this.source.issuer) {
        throw new Error(
          `oidc: issuer did not match the issuer returned by provider, expected "${this.source.issuer}" got "${String(discovery.issuer)}"`,
        );
      }
      if (typeof discovery.jwks_uri !== 'string') throw new Error('oidc: the discovery document has no jwks_uri');
      this.jwksUri = discovery.jwks_uri;
    }
    this.keySet = createLocalJWKSet((await fetchJson(this.jwksUri, this.source.ca)) as JSONWebKeySet);
  }

  /** Fetches unless a fetch is under way or happened within the cooldown (`force`: a token named an unknown key). */
  async refresh(force: boolean): Promise<void> {
    if (this.pending) return this.pending;
    if (this.keySet && (!force || Date.now() - this.lastForcedFetch < REFETCH_COOLDOWN_MS)) return;
    if (force) this.lastForcedFetch = Date.now();
    this.pending = this.fetch().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Verifies the signature and the standard claims; on an unknown key, refetches once and tries again. */
  async verify(
    token: string,
    options: { readonly audience: readonly string[]; readonly algorithms: readonly string[] },
  ): Promise<JWTPayload> {
    await this.refresh(false);
    const attempt = () => {
      if (!this.keySet) throw new Error('oidc: authenticator not initialized');
      return jwtVerify(token, this.keySet, {
        issuer: this.source.issuer,
        audience: [...options.audience],
        algorithms: [...options.algorithms],
      });
    };
    try {
      return (await attempt()).payload;
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw error;
      await this.refresh(true);
      return (await attempt()).payload;
    }
  }
}
