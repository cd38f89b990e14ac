/** Stage: may this user do this? Anything but an explicit allow is a 403 with the reference's message. */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { forbiddenError } from '../authz/forbidden';
import type { AuthorizationResult, Authorizer } from '../authz/types';
import { writeStatus } from '../status/write';
import './request-context';

export interface AuthorizationOptions {
  readonly authorizer: Authorizer;
}

export function withAuthorization(options: AuthorizationOptions): RequestHandler {
  const decide = (result: AuthorizationResult, req: Request, res: Response, next: NextFunction) => {
    if (result.decision === 'allow') {
      next();
      return;
    }
    writeStatus(res, forbiddenError({ user: req.user, request: req.requestInfo }, result.reason));
  };
  return (req, res, next) => {
    const result = options.authorizer.authorize({ user: req.user, request: req.requestInfo });
    if (result instanceof Promise) result.then((settled) => decide(settled, req, res, next), next);
    else decide(result, req, res, next);
  };
}
