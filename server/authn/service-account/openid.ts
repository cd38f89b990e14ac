/**
 * The service-account issuer's OpenID Connect discovery, so that other systems can verify this
 * cluster's tokens: `/.well-known/openid-configuration` and `/openid/v1/jwks`. Served only when
 * the issuer is an https URL, as in the reference; what may read them is the authorizer's call
 * (the reference's `system:service-account-issuer-discovery` role).
 */
import type { Application, NextFunction, Request, Response } from 'express';
import { methodNotAllowed } from '../../status/catalogue';
import { restfulRouteRefusal } from '../../codec/route-accept';
import '../../request/request-context';
import { jwkOf, type VerifyingKey } from './keys';
import type { ServiceAccountKeySource } from './key-source';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

export interface OpenIdOptions {
  readonly issuer: string;
  readonly keys: ServiceAccountKeySource;
  /** `--service-account-jwks-uri`; absent: `https://<address the server is reached at>/openid/v1/jwks`. */
  readonly jwksUri?: string;
  readonly externalAddress: () => string;
}

export function openIdConfiguration(options: OpenIdOptions): Record<string, unknown> {
  return {
    issuer: options.issuer,
    jwks_uri: options.jwksUri ?? `https://${options.externalAddress()}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(options.keys.published().map((key) => key.alg))].sort(),
  };
}

export function jwks(keys: readonly VerifyingKey[]): { keys: Record<string, string>[] } {
  return { keys: keys.map(jwkOf) };
}

function isHttpsUrl(issuer: string): boolean {
  try {
    return new URL(issuer).protocol === 'https:';
  } catch {
    return false;
  }
}

/** Mounts the two documents when the issuer is an https URL; answers the paths mounted. */
export function mountOpenIdRoutes(app: Application, options: OpenIdOptions): readonly string[] {
  if (!isHttpsUrl(options.issuer)) return [];
  const send = (res: Response, contentType: string, body: unknown) => {
    const bytes = Buffer.from(JSON.stringify(body));
    res.setHeader('Content-Type', contentType);
    // An hour for key files; until the external signer's next refresh hint otherwise.
    res.setHeader('Cache-Control', `public, max-age=${options.keys.cacheMaxAgeSeconds()}`);
    res.setHeader('Content-Length', bytes.length);
    res.end(bytes);
  };
  // go-restful routes in the reference: every other method (HEAD too) is refused, and so is an
  // Accept naming neither the document's media type nor `*/*`.
  const route = (produces: string, body: () => unknown) => (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET') return next(methodNotAllowed());
    const refusal = restfulRouteRefusal({ method: req.method, accept: req.headers.accept }, { produces: [produces] });
    if (refusal) return next(refusal);
    send(res, produces, body());
  };
  app.route(OPENID_CONFIGURATION_PATH).all(route('application/json', () => openIdConfiguration(options)));
  app.route(JWKS_PATH).all(route('application/jwk-set+json', () => jwks(options.keys.published())));
  return [OPENID_CONFIGURATION_PATH, JWKS_PATH];
}
