/**
 * POST on a kind stored nowhere (the access reviews, TokenReview, SelfSubjectReview): the body is
 * decoded as any create's (`fieldValidation` Strict, Warn or Ignore against the kind's schema,
 * unknown fields dropped), then answered. The decoder's warnings (unknown or duplicate fields
 * under Warn) and the version's deprecation reach the client as `Warning` headers.
 */
import type { KubeObject } from '../../api/objects';
import { finishRequest } from './post-timeout';
import { parseWriteOptions, queryOf } from '../request/query';
import { decodeObjectBody } from './object-body';
import {
  addWarnings,
  deprecationWarnings,
  writeResponse,
  type HandlerScope,
  type ResourceHandler,
  type ResourceRequest,
} from './scope';

export type VirtualAnswer = (object: KubeObject, request: ResourceRequest) => Promise<object>;

export function virtualCreateHandler(answer: VirtualAnswer): (scope: HandlerScope) => ResourceHandler {
  return (scope) => async (request) => {
    addWarnings(request.req, deprecationWarnings(scope));
    const decoded = await decodeObjectBody(
      scope,
      request.req,
      parseWriteOptions(queryOf(request.req), 'CreateOptions'),
    );
    addWarnings(request.req, decoded.warnings);
    const answered = await finishRequest(request.req, answer(decoded.object, request));
    await writeResponse(scope, request.res, 201, answered);
  };
}
