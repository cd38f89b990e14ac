/**
 * Serves the authentication group's create-only resources, which are stored nowhere:
 * SelfSubjectReview and TokenReview. The chain has authenticated and authorized the request
 * (verb `create` on the resource) before it gets here. A dedicated mount until the registry
 * has a slot for virtual resources.
 */
import type { Application, NextFunction, Request, Response } from 'express';
import { readBody } from '../../http/body';
import '../../http/request-context';
import type { KubeObject } from '../../../storage/objects/types';
import { decodeCborBody } from '../../codec/cbor';
import { requestBodyFormat, serializersFor, type Format } from '../../codec/media-type';
import { decodeObject } from '../../codec/protobuf-envelope';
import { writeObject } from '../../codec/respond';
import { methodNotSupported } from '../../status/catalogue';
import { parseBody } from '../../validation/decode';
import type { TokenAuthenticator } from '../types';
import { selfSubjectReview } from './self-subject-review';
import { tokenReview } from './token-review';

export interface ReviewRoutesOptions {
  readonly tokens: TokenAuthenticator;
  readonly apiAudiences: readonly string[];
  readonly now?: () => Date;
}

/** The body in any of the wire formats clients send (kubectl sends protobuf for built-in kinds). */
export async function readReviewBody(req: Request, expectedKind: string): Promise<unknown> {
  let format: Format;
  try {
    format = requestBodyFormat({ contentType: req.headers['content-type'], serializers: serializersFor({ protobuf: true, cbor: false }) });
  } catch (error) {
    req.resume();
    throw error;
  }
  const body = await readBody(req);
  if (format === 'protobuf') return decodeObject(body);
  if (format === 'cbor') return decodeCborBody(body);
  return parseBody({ body, format, expectedKind, findDuplicates: false }).value;
}

/** Answers in the representation the client negotiated; a review has no table form. */
export async function writeReview(req: Request, res: Response, group: string, resource: string, object: object): Promise<void> {
  await writeObject({ req, res, endpoint: { resource: { group, resource }, protobuf: true, table: false }, code: 201, object: object as KubeObject });
}

export function mountReviewRoutes(app: Application, options: ReviewRoutesOptions): void {
  const now = options.now ?? (() => new Date());
  app.use((req: Request, res: Response, next: NextFunction) => {
    const info = req.requestInfo;
    if (!info?.isResourceRequest || info.apiGroup !== 'authentication.k8s.io' || info.apiVersion !== 'v1') return next();
    if (info.resource !== 'selfsubjectreviews' && info.resource !== 'tokenreviews') return next();
    if (info.verb !== 'create' || info.name !== '' || info.subresource !== '') {
      req.resume();
      return next(methodNotSupported({ group: info.apiGroup, resource: info.resource }, info.verb));
    }
    const answer = async (): Promise<void> => {
      if (info.resource === 'selfsubjectreviews') {
        const body = await readReviewBody(req, 'SelfSubjectReview');
        await writeReview(req, res, info.apiGroup, info.resource, selfSubjectReview({ body, user: req.user, now: now() }));
      } else {
        const body = await readReviewBody(req, 'TokenReview');
        await writeReview(req, res, info.apiGroup, info.resource, await tokenReview({ body, namespace: info.namespace, tokens: options.tokens, apiAudiences: options.apiAudiences }));
      }
    };
    answer().catch(next);
  });
}
