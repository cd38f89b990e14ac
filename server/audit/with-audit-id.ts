/**
 * Stage: every request has an audit ID, the client's own `Audit-ID` header when it sent one, a
 * fresh UUID otherwise, and every answer names it in `Audit-Id`, audited or not, as the
 * reference's answers do: the ID a client logs is the one to look for in the audit log. The
 * time the request arrived is taken here too, first in the chain, for its events'
 * requestReceivedTimestamp (authentication may take a while, a token webhook's).
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import '../request/request-context';
import { nowMicros } from './record/event';

export const AUDIT_ID_HEADER = 'Audit-Id';

export function withAuditId(): RequestHandler {
  return (req, res, next) => {
    const sent = req.headers['audit-id'];
    req.auditID = typeof sent === 'string' && sent !== '' ? sent : randomUUID();
    req.receivedMicros = nowMicros();
    res.setHeader(AUDIT_ID_HEADER, req.auditID);
    next();
  };
}
