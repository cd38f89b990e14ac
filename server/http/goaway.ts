/**
 * `--goaway-chance`: on that fraction of requests the server asks the client to take its next
 * request to a new connection, so that behind a load balancer long-lived clients spread again
 * over the replicas (one that has just restarted, say, gets its share back).
 *
 * The reference does this for HTTP/2 only, where `Connection: close` makes Go's server send
 * GOAWAY: the stream in flight finishes and the client opens a new connection for the next
 * ones. capstan serves HTTP/1.1 only (Node's `https` module: its ALPN offers no `h2`), and
 * HTTP/1.1's own way to say the same is `Connection: close` on the answer: the answer (a watch
 * stream too) completes, then the server closes the connection and the client dials again.
 * HTTP/1.1 clients open a connection per request in flight anyway, so the chance per request
 * has the same effect per connection as the reference's per stream.
 *
 * At 0 (the default) the stage is not in the chain at all.
 */
import type { RequestHandler } from 'express';

export function withProbabilisticGoaway(options: {
  readonly chance: number;
  readonly random?: () => number;
}): RequestHandler | undefined {
  const { chance } = options;
  if (chance <= 0) return undefined;
  const random = options.random ?? Math.random;
  return (_req, res, next) => {
    if (random() < chance) res.setHeader('Connection', 'close');
    next();
  };
}
