/**
 * Stage: `--cors-allowed-origins`. A request whose `Origin` matches one of the patterns (Go
 * regular expressions) gets the reference's CORS headers, and its preflight `OPTIONS` is answered
 * 204 here, before authentication, as browsers send preflights without credentials. A request
 * from another origin, or with none, goes on untouched. Without patterns the stage is not in the
 * chain.
 */
import type { RequestHandler } from 'express';
import { compileRe2 } from '../regex/re2';

const ALLOWED_METHODS = 'POST, GET, OPTIONS, PUT, DELETE, PATCH';
const ALLOWED_HEADERS =
  'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since';
const EXPOSED_HEADERS = 'Date';

export function withCors(allowedOrigins: readonly string[]): RequestHandler {
  const patterns = allowedOrigins.map((pattern) => compileRe2(pattern));
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || origin === '' || !patterns.some((pattern) => pattern.matcher(origin).find())) {
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (req.method === 'OPTIONS') {
      res.statusCode = 204;
      res.end();
      return;
    }
    next();
  };
}
