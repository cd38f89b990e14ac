/**
 * The checks the reference's go-restful router makes of a request before it picks a route (its
 * resource, `/api` discovery and `/version` routes), after the path and the method: the
 * `Content-Type` against what the route consumes (a 415), then the `Accept` against what it
 * produces (a 406). Each header is a comma-separated list whose entries, parameters cut off,
 * must equal (case and all) one of the route's media types, or be `*\/*` in an `Accept`. This
 * is stricter than the negotiation that follows: `application/*` passes the negotiation but
 * not this check, so those routes refuse it.
 */
import { notAcceptableByRoute, unsupportedMediaTypeByRoute } from '../status/catalogue';
import type { StatusError } from '../status/status-error';

export interface RestfulRoute {
  /** Absent: anything (`*\/*`), as the resource routes declare. */
  readonly consumes?: readonly string[];
  readonly produces: readonly string[];
}

/** Methods whose requests may come without a `Content-Type` whatever the route consumes. */
const BODILESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE', 'TRACE']);

/** The router's refusal of the request for the route, or undefined when it lets it through. */
export function restfulRouteRefusal(
  request: { readonly method: string; readonly contentType?: string; readonly accept: string | undefined },
  route: RestfulRoute,
): StatusError | undefined {
  if (route.consumes !== undefined) {
    const contentType = request.contentType ?? '';
    const consumed =
      contentType === ''
        ? BODILESS_METHODS.has(request.method) || route.consumes.includes('application/octet-stream')
        : listNames(contentType, route.consumes, { anyEntry: false });
    if (!consumed) return unsupportedMediaTypeByRoute();
  }
  // An absent or empty header is taken as `*/*`.
  const accept = request.accept ?? '';
  if (accept !== '' && !listNames(accept, route.produces, { anyEntry: true })) {
    return notAcceptableByRoute(route.produces);
  }
  return undefined;
}

/** Whether an entry of the header's list is one of `mediaTypes` (or `*\/*`, as an entry when `anyEntry`). */
function listNames(header: string, mediaTypes: readonly string[], options: { anyEntry: boolean }): boolean {
  for (const entry of header.split(',')) {
    const semicolon = entry.indexOf(';');
    const mediaType = (semicolon === -1 ? entry : entry.slice(0, semicolon)).replace(/^ +| +$/g, '');
    if (options.anyEntry && mediaType === '*/*') return true;
    if (mediaTypes.some((candidate) => candidate === '*/*' || candidate === mediaType)) return true;
  }
  return false;
}
