/** Stage: may this user do this? Anything but an explicit allow is a 403 with the reference's message. */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { forbiddenError } from '../authz/forbidden';
import { requestAttributes } from '../authz/request-attributes';
import type { Attributes, AuthorizationResult, Authorizer } from '../authz/types';
import { writeStatus } from '../responsewriters/write-status';
import '../request/request-context';
import { addAuditAnnotation } from '../audit/record/request-audit';

/** The audit annotations of the decision, as the reference names them. */
export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';

export interface AuthorizationOptions {
  readonly authorizer: Authorizer;
}

export function withAuthorization(options: AuthorizationOptions): RequestHandler {
  const decide = (result: AuthorizationResult, attributes: Attributes, res: Response, next: NextFunction) => {
    const allowed = result.decision === 'allow';
    addAuditAnnotation(res.req, DECISION_ANNOTATION, allowed ? 'allow' : 'forbid');
    addAuditAnnotation(res.req, REASON_ANNOTATION, result.reason);
    if (allowed) {
      next();
      return;
    }
    writeStatus(res, forbiddenError(attributes, result.reason));
  };
  return (req: Request, res, next) => {
    const attributes = requestAttributes(req.requestInfo, req.user, req.rawQuery);
    const result = options.authorizer.authorize(attributes);
    if (result instanceof Promise) result.then((settled) => decide(settled, attributes, res, next), next);
    else decide(result, attributes, res, next);
  };
}
