/**
 * One request's audit record, kept on the request (`req.audit`) from the audit stage on, for
 * the requests the policy audits: the stages emit snapshots of it; later stages and handlers add
 * to it through the functions below, which do nothing when the request is not audited (no
 * policy, or level None), so callers need not ask.
 *
 * What goes in, by level: Metadata keeps who, what, when and the answer's status; Request adds
 * the request's object; RequestResponse the answer's object too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../../../api/user-info';
import '../../request/request-context';
import type { RequestAuditConfig } from './policy-rules';
import type { AuditLevel, AuditStage } from './policy';
import {
  eventUser,
  microTime,
  nowMicros,
  orderedObjectReference,
  type AuditEvent,
  type EventUser,
  type ObjectReference,
  type ResponseStatus,
} from './event';

const LEVEL_ORDER: Readonly<Record<AuditLevel, number>> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

/** Where a stage's event goes; false when it could not be kept (the buffer is full). */
export type EventSink = (event: AuditEvent) => boolean;

export interface RequestAuditStart {
  readonly config: RequestAuditConfig;
  readonly auditID: string;
  readonly requestURI: string;
  readonly verb: string;
  readonly user: UserInfo;
  readonly sourceIPs: readonly string[];
  readonly userAgent?: string;
  readonly objectRef?: ObjectReference;
  readonly receivedMicros: number;
  readonly sink: EventSink;
}

export class RequestAudit {
  readonly level: AuditLevel;
  /** Written by admission plugins too (through the write request), so it is a plain record. */
  readonly annotations: Record<string, string> = {};
  impersonatedUser?: EventUser;
  /** Set when a handler failed with an unexpected error: the request ends in the Panic stage. */
  panic?: string;
  /** Set when a route switched protocols on the raw socket: the code it answered with there. */
  switchedCode?: number;
  private objectRef?: ObjectReference;
  private responseStatus?: ResponseStatus;
  private requestObject?: unknown;
  private responseObject?: unknown;
  private readonly user: EventUser;
  private readonly receivedAt: string;

  constructor(private readonly start: RequestAuditStart) {
    this.level = start.config.level;
    this.user = eventUser(start.user);
    this.objectRef = start.objectRef;
    this.receivedAt = microTime(start.receivedMicros);
  }

  includes(level: AuditLevel): boolean {
    return LEVEL_ORDER[this.level] >= LEVEL_ORDER[level];
  }

  setResponseStatus(status: ResponseStatus): void {
    this.responseStatus = status;
  }

  /** The code the answer was sent with; a Status the answer carried keeps its other fields. */
  setResponseCode(code: number): void {
    this.responseStatus = { ...(this.responseStatus ?? { metadata: {} }), code };
  }

  /**
   * The object the request carried (decoded), which also names the object when the path did
   * not (a create); kept as the event's requestObject from level Request, with the defaults of
   * its version applied (`applyDefaults` changes the copy kept), as the reference's decoder does.
   */
  setRequestObject(object: unknown, applyDefaults?: (copy: unknown) => void): void {
    const meta = (object as { metadata?: Record<string, unknown> } | null)?.metadata;
    if (meta && typeof meta === 'object') {
      const ref = (this.objectRef ??= {});
      for (const field of ['namespace', 'name', 'uid', 'resourceVersion'] as const) {
        const value = meta[field];
        if (!ref[field] && typeof value === 'string' && value !== '') ref[field] = value;
      }
    }
    // A copy: the server goes on to change the object it decoded (namespace, defaults).
    if (!this.includes('Request')) return;
    const copy = structuredClone(object);
    applyDefaults?.(copy);
    this.requestObject = this.withoutManagedFields(copy);
  }

  /** What the request sent, as is (a patch: the reference keeps the patch, not the patched object). */
  setRequestPatch(patch: unknown): void {
    if (this.includes('Request')) this.requestObject = patch;
  }

  /** The answer's object; only evaluated at level RequestResponse, where it is kept. */
  setResponseObject(object: () => unknown): void {
    if (this.includes('RequestResponse')) this.responseObject = this.withoutManagedFields(object());
  }

  /** Sends the event of this stage, unless the policy omits the stage; false when it was dropped. */
  emit(stage: AuditStage): boolean {
    if (this.start.config.omitStages.includes(stage)) return true;
    return this.start.sink(this.snapshot(stage));
  }

  private snapshot(stage: AuditStage): AuditEvent {
    const { start } = this;
    const annotations = Object.keys(this.annotations).length > 0 ? { ...this.annotations } : undefined;
    return {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: this.level,
      auditID: start.auditID,
      stage,
      requestURI: start.requestURI,
      verb: start.verb,
      user: this.user,
      ...(this.impersonatedUser ? { impersonatedUser: this.impersonatedUser } : {}),
      sourceIPs: start.sourceIPs,
      ...(start.userAgent ? { userAgent: start.userAgent } : {}),
      ...(this.objectRef ? { objectRef: orderedObjectReference(this.objectRef) } : {}),
      ...(this.responseStatus ? { responseStatus: this.responseStatus } : {}),
      ...(this.requestObject !== undefined ? { requestObject: this.requestObject } : {}),
      ...(this.responseObject !== undefined ? { responseObject: this.responseObject } : {}),
      requestReceivedTimestamp: this.receivedAt,
      stageTimestamp: microTime(nowMicros()),
      ...(annotations ? { annotations } : {}),
    };
  }

  private withoutManagedFields(object: unknown): unknown {
    if (!this.start.config.omitManagedFields) return object;
    return stripManagedFields(object);
  }
}

/** A copy without `metadata.managedFields`, in an object and in a list's items. */
function stripManagedFields(object: unknown): unknown {
  if (typeof object !== 'object' || object === null) return object;
  const record = object as Record<string, unknown>;
  let copy = record;
  const meta = record.metadata as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object' && 'managedFields' in meta) {
    const { managedFields: _managedFields, ...rest } = meta;
    copy = { ...copy, metadata: rest };
  }
  if (Array.isArray(record.items)) copy = { ...copy, items: record.items.map(stripManagedFields) };
  return copy;
}

declare global {
  namespace Express {
    interface Request {
      /** Present while the request is audited at a level above None. */
      audit?: RequestAudit;
    }
  }
}

type AuditedRequest = IncomingMessage & { audit?: RequestAudit };

/** The record of an audited request, or undefined. */
export function auditOf(req: IncomingMessage): RequestAudit | undefined {
  return (req as AuditedRequest).audit;
}

/** Adds an annotation to the request's event (authorization's decision, a deprecated API). */
export function addAuditAnnotation(req: IncomingMessage, key: string, value: string): void {
  const audit = auditOf(req);
  if (audit) audit.annotations[key] = value;
}

/** Records the acting user once impersonation replaced the authenticated one. */
export function auditImpersonatedUser(req: IncomingMessage, user: UserInfo): void {
  const audit = auditOf(req);
  if (audit) audit.impersonatedUser = eventUser(user);
}

/**
 * A route switched protocols on the raw socket (exec, a proxied upgrade), past the response
 * object: its answer (101) starts the response now, and is what the events record to the end.
 */
export function auditSwitchedProtocols(req: IncomingMessage, code: number): void {
  const audit = auditOf(req);
  if (!audit) return;
  audit.switchedCode = code;
  audit.setResponseCode(code);
  audit.emit('ResponseStarted');
}

/** Marks the request as failed by an unexpected error (the reference's panic). */
export function auditPanic(req: IncomingMessage, error: unknown): void {
  const audit = auditOf(req);
  if (audit) audit.panic = error instanceof Error ? error.message : String(error);
}

/** The answer's Status, fields the event keeps, as the reference copies them. */
export function auditResponseStatus(
  res: ServerResponse,
  status: { status?: string; message?: string; reason?: string; details?: unknown; code: number },
): void {
  const audit = auditOf(res.req);
  if (!audit) return;
  audit.setResponseStatus({
    metadata: {},
    ...(status.status ? { status: status.status } : {}),
    ...(status.message ? { message: status.message } : {}),
    ...(status.reason ? { reason: status.reason } : {}),
    ...(status.details ? { details: status.details } : {}),
    code: status.code,
  });
}

/** The annotations admission plugins add for this request, or undefined when it is not audited. */
export function auditAnnotationsOf(req: IncomingMessage): Record<string, string> | undefined {
  return auditOf(req)?.annotations;
}

/** The decoded object a create or update carried, before the server changes it. */
export function auditRequestObject(
  req: IncomingMessage,
  object: unknown,
  applyDefaults?: (copy: unknown) => void,
): void {
  auditOf(req)?.setRequestObject(object, applyDefaults);
}

/** A patch's body, as JSON (the reference keeps the patch itself); a body that is not JSON is left out. */
export function auditRequestPatch(req: IncomingMessage, body: Buffer): void {
  const audit = auditOf(req);
  if (!audit?.includes('Request')) return;
  try {
    audit.setRequestPatch(JSON.parse(body.toString('utf8')));
  } catch {
    // An apply body in YAML: not JSON, and the reference would not show it as JSON either.
  }
}

/** DeleteOptions' members in the reference's order. */
const DELETE_OPTION_FIELDS = [
  'gracePeriodSeconds',
  'preconditions',
  'orphanDependents',
  'propagationPolicy',
  'dryRun',
  'ignoreStoreReadErrorWithClusterBreakingPotential',
];

/**
 * A delete's options body (JSON), as the reference logs it: in its internal version, a quirk of
 * the reference kept so that tools reading both logs see the same.
 */
export function auditDeleteOptions(req: IncomingMessage, jsonBody: Buffer): void {
  const audit = auditOf(req);
  if (!audit?.includes('Request') || jsonBody.length === 0) return;
  let sent: Record<string, unknown>;
  try {
    // `null` is no options, as the delete reads it.
    sent = (JSON.parse(jsonBody.toString('utf8')) as Record<string, unknown> | null) ?? {};
  } catch {
    return;
  }
  const options: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/__internal' };
  for (const field of DELETE_OPTION_FIELDS)
    if (sent[field] !== undefined && sent[field] !== null) options[field] = sent[field];
  audit.setRequestPatch(options);
}
