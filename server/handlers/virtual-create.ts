/**
 * POST on a kind stored nowhere (the access reviews, TokenReview, SelfSubjectReview): the body is
 * decoded as any create's (`fieldValidation` Strict, Warn or Ignore against the kind's schema,
 * unknown fields dropped), its system metadata cleared and its namespace set from the path, and
 * its writer recorded in managedFields as any create's is (the reference's create handler does
 * all this for these kinds too: answers that echo the request show it), then answered. The
 * decoder's warnings (unknown or duplicate fields under Warn) and the version's deprecation reach
 * the client as `Warning` headers.
 */
import type { KubeObject } from '../../api/objects';
import { finishRequest } from './post-timeout';
import { parseWriteOptions, queryOf } from '../request/query';
import { checkNamespace, decodeObjectBody, fieldManagerOf } from './object-body';
import { wipeSystemMetadata } from '../registry/store/object-meta';
import { recordManagedFields } from '../registry/store/managed-fields';
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
    const options = parseWriteOptions(queryOf(request.req), 'CreateOptions');
    const decoded = await decodeObjectBody(scope, request.req, options);
    addWarnings(request.req, decoded.warnings);
    wipeSystemMetadata(decoded.object);
    checkNamespace(scope, decoded.object, request.info.namespace);
    await recordManagedFields({ scope, object: decoded.object, manager: fieldManagerOf(request.req, options) });
    const answered = await finishRequest(request.req, answer(decoded.object, request));
    await writeResponse(scope, request.res, 201, answered);
  };
}
