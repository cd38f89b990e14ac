/** Stage: API answers are private and never cached unless a handler says otherwise. */
import type { RequestHandler } from 'express';

export function withCacheControl(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-cache, private');
    next();
  };
}
