/**
 * What every write a request asks for carries from the request itself: who asks, where admission
 * writes its audit annotations and warnings, and the deadline past which storage is not written.
 */
import type { Request } from 'express';
import { auditAnnotationsOf } from '../audit/record/request-audit';
import type { WriteRequest } from '../registry/store/admission';
import '../request/request-context';

export type WriteOrigin = Pick<WriteRequest, 'user' | 'auditAnnotations' | 'warnings' | 'deadline'>;

export function writeOriginOf(req: Request): WriteOrigin {
  return { user: req.user, auditAnnotations: auditAnnotationsOf(req), warnings: req.warnings, deadline: req.deadline };
}
