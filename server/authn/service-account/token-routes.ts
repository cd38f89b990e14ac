/** Serves the `token` subresource of serviceaccounts (TokenRequest); a dedicated mount until the registry has a slot for it. */
import type { Application, NextFunction, Request, Response } from 'express';
import '../../http/request-context';
import { methodNotSupported } from '../../status/catalogue';
import { readReviewBody, writeReview } from '../reviews/review-routes';
import { tokenRequest, type TokenRequestDeps } from './token-request';

export function mountTokenRequestRoute(app: Application, deps: TokenRequestDeps): void {
  app.use((req: Request, res: Response, next: NextFunction) => {
    const info = req.requestInfo;
    if (!info?.isResourceRequest || info.apiGroup !== '' || info.apiVersion !== 'v1' || info.resource !== 'serviceaccounts' || info.subresource !== 'token') return next();
    if (info.verb !== 'create') {
      req.resume();
      return next(methodNotSupported({ group: '', resource: 'serviceaccounts/token' }, info.verb));
    }
    readReviewBody(req, 'TokenRequest')
      .then((body) => tokenRequest({ body, namespace: info.namespace, name: info.name }, deps))
      .then((answer) => writeReview(req, res, 'authentication.k8s.io', 'tokenrequests', answer))
      .catch(next);
  });
}
