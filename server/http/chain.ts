/**
 * The handler chain, in execution order. Each stage is its own module; resource handlers are
 * mounted after the last stage and can rely on `req.requestInfo`, `req.user` and
 * `req.deadline` (see request-context.ts).
 */
import type { RequestHandler } from 'express';
import type { Authenticator } from '../authn/types';
import type { Authorizer } from '../authz/types';
import { withInFlightTracking, type InFlightRequests } from './in-flight';
import { withAuthentication } from './with-authentication';
import { withAuthorization } from './with-authorization';
import { withCacheControl } from './with-cache-control';
import { withRequestDeadline } from './with-request-deadline';
import { withRequestInfo } from './with-request-info';

export interface ChainOptions {
  readonly authenticator: Authenticator;
  readonly anonymous: boolean;
  readonly authorizer: Authorizer;
  readonly inFlight: InFlightRequests;
  readonly requestTimeoutMs: number;
}

export function handlerChain(options: ChainOptions): RequestHandler[] {
  return [
    withRequestInfo(),
    withCacheControl(),
    withInFlightTracking({ inFlight: options.inFlight }),
    withRequestDeadline({ requestTimeoutMs: options.requestTimeoutMs }),
    withAuthentication({ authenticator: options.authenticator, anonymous: options.anonymous }),
    // Impersonation, audit and priority-and-fairness go here, in this order, when they come.
    withAuthorization({ authorizer: options.authorizer }),
  ];
}
