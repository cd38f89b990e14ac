/**
 * Stage: acting as someone else. `Impersonate-User` (and with it `Impersonate-Group`,
 * `Impersonate-Uid`, `Impersonate-Extra-<key>`) replaces the authenticated user, once the
 * authorizer allows the caller the verb `impersonate` on each thing asked for: `users` (or
 * `serviceaccounts` for a `system:serviceaccount:<ns>:<name>` name), `groups`, `uids` and
 * `userextras/<key>` in `authentication.k8s.io`. Any refusal is a 403 for the whole request, as
 * in the reference; the headers are removed once used so nothing later reads them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, ANONYMOUS_USER, type UserInfo } from '../../api/user-info';
import { unescapeExtraKey } from '../authn/request-header';
import { serviceAccountGroups, splitServiceAccountUsername } from '../authn/service-account/names';
import { forbiddenError } from '../authz/forbidden';
import { impersonationAttributes, type ImpersonatedPart } from '../authz/impersonation';
import type { Authorizer } from '../authz/types';
import { badRequest } from '../status/catalogue';
import { StatusError } from '../status/status-error';
import { writeStatus } from '../responsewriters/write-status';
import { auditImpersonatedUser } from '../audit/record/request-audit';
import '../request/request-context';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';

/** One thing the caller asks to act as, in the reference's order: user, groups, extras, uid. */
interface ImpersonationRequest {
  readonly kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  readonly namespace?: string;
  readonly name: string;
  /** The extra's key, for `UserExtra`. */
  readonly extraKey?: string;
}

export function impersonationRequests(headersDistinct: Record<string, string[] | undefined>): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const user = headersDistinct[USER_HEADER]?.[0] ?? '';
  if (user !== '') {
    const account = splitServiceAccountUsername(user);
    requests.push(
      account
        ? { kind: 'ServiceAccount', namespace: account.namespace, name: account.name }
        : { kind: 'User', name: user },
    );
  }
  const groups = headersDistinct[GROUP_HEADER] ?? [];
  for (const group of groups) requests.push({ kind: 'Group', name: group });
  let hasExtra = false;
  for (const [header, values] of Object.entries(headersDistinct)) {
    if (!header.startsWith(EXTRA_PREFIX) || values === undefined) continue;
    hasExtra = true;
    const extraKey = unescapeExtraKey(header.slice(EXTRA_PREFIX.length));
    for (const value of values) requests.push({ kind: 'UserExtra', name: value, extraKey });
  }
  const uid = headersDistinct[UID_HEADER]?.[0] ?? '';
  if (uid !== '') requests.push({ kind: 'UID', name: uid });
  if ((groups.length > 0 || hasExtra || uid !== '') && user === '') {
    // The reference answers this with a bare 500; it is the client's headers that are wrong.
    throw badRequest(`requested ${goFormat(requests)} without impersonating a user`);
  }
  return requests;
}

/** Go's `%v` of the reference's ObjectReference list, which its error message shows. */
function goFormat(requests: readonly ImpersonationRequest[]): string {
  const version = (request: ImpersonationRequest) =>
    request.kind === 'UserExtra' || request.kind === 'UID' ? 'authentication.k8s.io/v1' : '';
  const one = (r: ImpersonationRequest) =>
    `{${[r.kind, r.namespace ?? '', r.name, '', version(r), '', r.extraKey ?? ''].join(' ')}}`;
  return `[${requests.map(one).join(' ')}]`;
}

/** One impersonation request as the authorizer's question names it (server/authz/impersonation.ts). */
function partOf(request: ImpersonationRequest): ImpersonatedPart {
  switch (request.kind) {
    case 'User':
      return { kind: 'user', name: request.name };
    case 'ServiceAccount':
      return { kind: 'user', name: `system:serviceaccount:${request.namespace ?? ''}:${request.name}` };
    case 'Group':
      return { kind: 'group', name: request.name };
    case 'UID':
      return { kind: 'uid', uid: request.name };
    case 'UserExtra':
      return { kind: 'extra', key: request.extraKey ?? '', value: request.name };
  }
}

/** The identity the requests describe, with the reference's rules for the two system groups. */
export function impersonatedUser(requests: readonly ImpersonationRequest[], groupsSpecified: boolean): UserInfo {
  let name = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const request of requests) {
    if (request.kind === 'User') name = request.name;
    else if (request.kind === 'ServiceAccount') {
      name = `system:serviceaccount:${request.namespace}:${request.name}`;
      // A service account's groups follow from its name, unless the caller names groups.
      if (!groupsSpecified) groups.push(...serviceAccountGroups(request.namespace ?? ''));
    } else if (request.kind === 'Group') groups.push(request.name);
    else if (request.kind === 'UserExtra') (extra[request.extraKey ?? ''] ??= []).push(request.name);
    else uid = request.name;
  }
  if (name !== ANONYMOUS_USER.name) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP))
      groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) {
    groups.push(UNAUTHENTICATED_GROUP);
  }
  return { name, uid: uid || undefined, groups, extra };
}

function removeImpersonationHeaders(headers: IncomingHttpHeaders): void {
  for (const header of Object.keys(headers)) {
    if (header === USER_HEADER || header === GROUP_HEADER || header === UID_HEADER || header.startsWith(EXTRA_PREFIX))
      delete headers[header];
  }
}

export function withImpersonation(options: { readonly authorizer: Authorizer }): RequestHandler {
  const run = async (req: Request): Promise<void> => {
    const requests = impersonationRequests(req.headersDistinct);
    if (requests.length === 0) return;
    for (const request of requests) {
      const attributes = impersonationAttributes(req.user, partOf(request));
      const result = await options.authorizer.authorize(attributes);
      if (result.decision !== 'allow') throw forbiddenError(attributes, result.reason);
    }
    req.user = impersonatedUser(requests, (req.headersDistinct[GROUP_HEADER] ?? []).length > 0);
    auditImpersonatedUser(req, req.user);
    removeImpersonationHeaders(req.headers);
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasImpersonationHeader(req.headers)) return next();
    run(req).then(
      () => next(),
      (error: unknown) => {
        if (error instanceof StatusError) writeStatus(res, error);
        else next(error);
      },
    );
  };
}

/** The common case costs one scan of the header names. */
function hasImpersonationHeader(headers: IncomingHttpHeaders): boolean {
  for (const header in headers) if (header.startsWith('impersonate-')) return true;
  return false;
}
