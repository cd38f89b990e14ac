/**
 * Stage: the audit events of a request, after authentication and before impersonation (the
 * policy looks at who authenticated, as the reference's does). The policy's level for this
 * request decides whether anything happens: at None the request pays for one rule lookup.
 * Otherwise: RequestReceived now; ResponseStarted when a long-running answer (a watch) sends
 * its headers; ResponseComplete when the answer ends, or Panic when a handler failed with an
 * unexpected error. Each event goes to the bounded buffers and never waits for a backend.
 *
 * With no policy file (or no backend) the stage is not in the chain at all (server/http/chain.ts).
 */
import type { Request, RequestHandler, Response } from 'express';
import type { UserInfo } from '../../api/user-info';
import type { Status } from '../status/status-error';
import type { ApiserverMetrics } from '../metrics/apiserver-metrics';
import type { DeprecatedApi } from '../metrics/with-request-metrics';
import { isLongRunning } from '../request/long-running';
import type { RequestInfo } from '../request/request-info';
import '../request/request-context';
import { internalError } from '../status/catalogue';
import { writeStatus } from '../responsewriters/write-status';
import { objectReferenceOf, sourceIPsOf, userAgentOf } from './record/event';
import type { AuditPolicy } from './record/policy';
import { evaluatePolicy, type RequestAuditConfig } from './record/policy-rules';
import { RequestAudit, type EventSink } from './record/request-audit';

export interface AuditStageOptions {
  readonly policy: AuditPolicy;
  readonly sink: EventSink;
  readonly metrics: ApiserverMetrics;
  /** Requests to deprecated versions are annotated `k8s.io/deprecated` (and `k8s.io/removed-release`). */
  readonly deprecatedApi?: (info: RequestInfo) => DeprecatedApi | undefined;
}

export const DEPRECATED_ANNOTATION = 'k8s.io/deprecated';
export const REMOVED_RELEASE_ANNOTATION = 'k8s.io/removed-release';

/** The message of the Panic stage's status, as the reference words it. */
const PANIC_PREFIX = "APIServer panic'd: ";

export function withAudit(options: AuditStageOptions): RequestHandler {
  const { policy, sink, metrics } = options;
  return (req, res, next) => {
    const info = req.requestInfo;
    const config = evaluatePolicy(policy, req.user, info);
    metrics.auditLevels.inc({ level: config.level });
    if (config.level === 'None') {
      next();
      return;
    }
    const audit = requestAudit({ req, config, user: req.user, sink });
    req.audit = audit;
    if (!audit.emit('RequestReceived')) {
      metrics.auditRequestsRejected.inc();
      req.audit = undefined;
      writeStatus(res, internalError('failed to store audit event'));
      return;
    }
    const deprecated = info.isResourceRequest ? options.deprecatedApi?.(info) : undefined;
    if (deprecated) {
      audit.annotations[DEPRECATED_ANNOTATION] = 'true';
      if (deprecated.removedRelease) audit.annotations[REMOVED_RELEASE_ANNOTATION] = deprecated.removedRelease;
    }
    if (isLongRunning(info)) emitWhenHeadersGo(res, audit);
    res.once('close', () => {
      if (audit.panic !== undefined) {
        audit.setResponseStatus({
          metadata: {},
          status: 'Failure',
          message: PANIC_PREFIX + audit.panic,
          reason: 'InternalError',
          code: 500,
        });
        audit.emit('Panic');
        return;
      }
      if (audit.switchedCode !== undefined) audit.setResponseCode(audit.switchedCode);
      else if (res.headersSent) audit.setResponseCode(res.statusCode);
      else audit.setResponseStatus(CLOSED_EARLY);
      audit.emit('ResponseComplete');
    });
    next();
  };
}

/**
 * For the authentication stage: a request answered 401 is audited by itself, as the
 * reference's, with one ResponseStarted event and no user, at the level the policy gives a
 * request of nobody.
 */
export function auditUnauthenticated(
  options: Omit<AuditStageOptions, 'deprecatedApi'>,
): (req: Request, status: Status) => void {
  return (req, status) => {
    const config = evaluatePolicy(options.policy, NOBODY, req.requestInfo);
    options.metrics.auditLevels.inc({ level: config.level });
    if (config.level === 'None') return;
    const audit = requestAudit({ req, config, user: NOBODY, sink: options.sink });
    audit.setResponseStatus({
      metadata: {},
      status: status.status,
      message: status.message,
      reason: status.reason,
      code: status.code,
    });
    audit.emit('ResponseStarted');
  };
}

const NOBODY: UserInfo = { name: '', groups: [] };

function requestAudit(options: {
  req: Request;
  config: RequestAuditConfig;
  user: UserInfo;
  sink: EventSink;
}): RequestAudit {
  const { req } = options;
  return new RequestAudit({
    config: options.config,
    auditID: req.auditID,
    requestURI: req.originalUrl,
    verb: req.requestInfo.verb,
    user: options.user,
    sourceIPs: sourceIPsOf(req),
    userAgent: userAgentOf(req),
    objectRef: objectReferenceOf(req.requestInfo),
    receivedMicros: req.receivedMicros,
    sink: options.sink,
  });
}

/** What the event says of an answer that never started: the client went away first. */
const CLOSED_EARLY = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 } as const;

/** ResponseStarted, once, when the answer's headers are written (Node writes them all through `writeHead`). */
function emitWhenHeadersGo(res: Response, audit: RequestAudit): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    res.writeHead = writeHead;
    const result = writeHead.apply(this, args);
    audit.setResponseCode(res.statusCode);
    audit.emit('ResponseStarted');
    return result;
  } as Response['writeHead'];
}
