/**
 * The audit.k8s.io/v1 Event, with its members in the order the reference writes them, and what
 * it is made of: the user as the event names it, the source IPs (proxies' headers first, as the
 * reference's), microsecond timestamps, and Go's JSON (which escapes `<`, `>` and `&`), so that
 * a line of capstan's log reads like a line of the reference's.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { UserInfo } from '../../../api/user-info';
import { goJSONEscaped } from '../../../api/go-quote';
import type { RequestInfo } from '../../request/request-info';
import type { AuditLevel, AuditStage } from './policy';

export interface EventUser {
  /** Absent for a request that failed authentication. */
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The bounded part of a metav1.Status the event keeps. */
export interface ResponseStatus {
  readonly metadata: Record<string, never>;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly details?: unknown;
  readonly code: number;
}

export interface AuditEvent {
  readonly kind: 'Event';
  readonly apiVersion: 'audit.k8s.io/v1';
  readonly level: AuditLevel;
  readonly auditID: string;
  readonly stage: AuditStage;
  readonly requestURI: string;
  readonly verb: string;
  readonly user: EventUser;
  readonly impersonatedUser?: EventUser;
  readonly sourceIPs: readonly string[];
  readonly userAgent?: string;
  readonly objectRef?: ObjectReference;
  readonly responseStatus?: ResponseStatus;
  readonly requestObject?: unknown;
  readonly responseObject?: unknown;
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

export const AUDIT_EVENT_VERSION = 'audit.k8s.io/v1';

/** The reference cuts longer user agents and marks the cut. */
const MAX_USER_AGENT_LENGTH = 1024;
const USER_AGENT_TRUNCATED = '...TRUNCATED';

export function eventUser(user: UserInfo): EventUser {
  return {
    ...(user.name ? { username: user.name } : {}),
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: user.groups } : {}),
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

export function userAgentOf(req: IncomingMessage): string | undefined {
  const agent = req.headers['user-agent'];
  if (!agent) return undefined;
  return agent.length > MAX_USER_AGENT_LENGTH ? agent.slice(0, MAX_USER_AGENT_LENGTH) + USER_AGENT_TRUNCATED : agent;
}

/** The request's object, as far as its path names it: completed later from the request's body. */
export function objectReferenceOf(info: RequestInfo): ObjectReference | undefined {
  if (!info.isResourceRequest) return undefined;
  const ref: ObjectReference = {};
  if (info.resource) ref.resource = info.resource;
  if (info.namespace) ref.namespace = info.namespace;
  if (info.name) ref.name = info.name;
  if (info.apiGroup) ref.apiGroup = info.apiGroup;
  if (info.apiVersion) ref.apiVersion = info.apiVersion;
  if (info.subresource) ref.subresource = info.subresource;
  return ref;
}

/** Members in the reference's order, whatever order they were filled in. */
export function orderedObjectReference(ref: ObjectReference): ObjectReference {
  const ordered: ObjectReference = {};
  for (const member of OBJECT_REFERENCE_MEMBERS) if (ref[member]) ordered[member] = ref[member];
  return ordered;
}

const OBJECT_REFERENCE_MEMBERS = [
  'resource',
  'namespace',
  'name',
  'uid',
  'apiGroup',
  'apiVersion',
  'resourceVersion',
  'subresource',
] as const;

/** `X-Forwarded-For`'s addresses, then `X-Real-Ip`'s, then the peer's, each once. */
export function sourceIPsOf(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const add = (candidate: string | undefined) => {
    const ip = unmapped(candidate?.trim() ?? '');
    if (isIP(ip) !== 0 && !ips.includes(ip)) ips.push(ip);
  };
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded === 'string') for (const part of forwarded.split(',')) add(part);
  const realIp = req.headers['x-real-ip'];
  if (typeof realIp === 'string') add(realIp);
  add(req.socket.remoteAddress);
  return ips;
}

/** Node shows IPv4 peers of a dual-stack socket as `::ffff:a.b.c.d`; Go shows `a.b.c.d`. */
function unmapped(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/** Epoch microseconds now, for MicroTime stamps. */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

/** The date and time of the last second formatted, which most stamps share. */
let formattedSecond = { second: Number.NaN, text: '' };

/** metav1.MicroTime's text: RFC 3339 in UTC with six fractional digits. */
export function microTime(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  if (second !== formattedSecond.second)
    formattedSecond = { second, text: new Date(second * 1000).toISOString().slice(0, 19) };
  return `${formattedSecond.text}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
}

export function goJson(value: unknown): string {
  return goJSONEscaped(JSON.stringify(value));
}
