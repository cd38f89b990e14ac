/**
 * Stage: `--strict-transport-security-directives` (`max-age=31536000,includeSubDomains,preload`)
 * becomes a `Strict-Transport-Security` header on every answer, the directives joined by `; ` as
 * the reference joins them. Without directives the stage is not in the chain.
 */
import type { RequestHandler } from 'express';

export function withStrictTransportSecurity(directives: readonly string[]): RequestHandler {
  const value = directives.join('; ');
  return (_req, res, next) => {
    res.setHeader('Strict-Transport-Security', value);
    next();
  };
}
