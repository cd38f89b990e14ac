/**
 * Stage: who is asking. An invalid credential is a 401; no credential at all makes the request
 * anonymous (`system:anonymous`, group `system:unauthenticated`) when anonymous requests are
 * enabled. Authenticated users also get the group `system:authenticated`.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { withAuthenticatedGroup } from '../authn/authenticated-group';
import { type AuthenticationResult, type Authenticator } from '../authn/types';
import { ANONYMOUS_USER } from '../../api/user-info';
import { unauthorized } from '../status/catalogue';
import { writeStatus } from '../responsewriters/write-status';
import type { Status } from '../status/status-error';
import '../request/request-context';

export interface AuthenticationOptions {
  readonly authenticator: Authenticator;
  /** Whether a request to this path without credentials is served as anonymous (`--anonymous-auth`, or the configuration file's conditions). */
  readonly anonymous: (path: string) => boolean;
  /** Told of each request answered 401 (audit records it). */
  readonly onUnauthenticated?: (req: Request, status: Status) => void;
}

export function withAuthentication(options: AuthenticationOptions): RequestHandler {
  const decide = (result: AuthenticationResult, req: Request, res: Response, next: NextFunction) => {
    if (result && 'user' in result) {
      req.user = withAuthenticatedGroup(result.user);
    } else if (result === undefined && options.anonymous(req.requestInfo.path)) {
      req.user = ANONYMOUS_USER;
    } else {
      const error = unauthorized();
      writeStatus(res, error);
      options.onUnauthenticated?.(req, error.status);
      return;
    }
    next();
  };
  return (req, res, next) => {
    const result = options.authenticator.authenticate(req);
    if (result instanceof Promise) result.then((settled) => decide(settled, req, res, next), next);
    else decide(result, req, res, next);
  };
}
