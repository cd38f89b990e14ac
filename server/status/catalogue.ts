/**
 * The catalogue of the reference's error reasons, codes and message texts (1.34), so that
 * clients print what they print against a real server.
 */
import { StatusError } from './status-error';
import { aggregateFieldErrors, type FieldError } from './field-error';
import { goQuote } from '../../api/go-quote';
import { qualifiedKind, qualifiedResource, type GroupKind, type GroupResource } from '../../api/identity';

export function notFound(resource: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 404,
    reason: 'NotFound',
    message: `${qualifiedResource(resource)} ${goQuote(name)} not found`,
    details: { name, group: resource.group, kind: resource.resource },
  });
}

/** A path no handler serves (the reference's not-found handler). */
export function pathNotFound(): StatusError {
  return new StatusError({
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
    details: {},
  });
}

/**
 * A method the route does not serve: the reference's go-restful router names neither the verb
 * nor the resource.
 */
export function methodNotAllowed(): StatusError {
  return new StatusError({
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
    details: {},
  });
}

export function alreadyExists(resource: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 409,
    reason: 'AlreadyExists',
    message: `${qualifiedResource(resource)} ${goQuote(name)} already exists`,
    details: { name, group: resource.group, kind: resource.resource },
  });
}

/** `cause` completes "Operation cannot be fulfilled on ...: <cause>". */
export function conflict(resource: GroupResource, name: string, cause: string): StatusError {
  return new StatusError({
    code: 409,
    reason: 'Conflict',
    message: `Operation cannot be fulfilled on ${qualifiedResource(resource)} ${goQuote(name)}: ${cause}`,
    details: { name, group: resource.group, kind: resource.resource },
  });
}

/** The stale-resourceVersion conflict of an update or delete. */
export function objectModified(resource: GroupResource, name: string): StatusError {
  return conflict(
    resource,
    name,
    'the object has been modified; please apply your changes to the latest version and try again',
  );
}

export function invalid(kind: GroupKind, name: string, errors: readonly FieldError[]): StatusError {
  const subject = `${qualifiedKind(kind)} ${goQuote(name)} is invalid`;
  return new StatusError({
    code: 422,
    reason: 'Invalid',
    message: errors.length === 0 ? subject : `${subject}: ${aggregateFieldErrors(errors)}`,
    details: {
      name,
      group: kind.group,
      kind: kind.kind,
      causes: errors.map((error) => ({ reason: error.type, message: error.detail, field: error.field })),
    },
  });
}

export function badRequest(message: string): StatusError {
  return new StatusError({ code: 400, reason: 'BadRequest', message });
}

/** A body naming another namespace than the URL: checked before the object reaches its storage. */
export function namespaceMismatch(): StatusError {
  return badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/**
 * `reason` completes the message: `<resource> "<name>" is forbidden: <reason>`, or
 * `<resource> is forbidden: ...` without a name, or `forbidden: ...` without a resource.
 */
export function forbidden(resource: GroupResource, name: string, reason: string): StatusError {
  let message: string;
  if (!resource.resource && !resource.group) message = `forbidden: ${reason}`;
  else if (!name) message = `${qualifiedResource(resource)} is forbidden: ${reason}`;
  else message = `${qualifiedResource(resource)} ${goQuote(name)} is forbidden: ${reason}`;
  return new StatusError({
    code: 403,
    reason: 'Forbidden',
    message,
    details: { name, group: resource.group, kind: resource.resource },
  });
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError({ code: 401, reason: 'Unauthorized', message: message || 'not authorized' });
}

/** `action` is a verb phrase as the reference words it, e.g. `create` or `watch`. */
export function methodNotSupported(resource: GroupResource, action: string): StatusError {
  return new StatusError({
    code: 405,
    reason: 'MethodNotAllowed',
    message: `${action} is not supported on resources of kind "${qualifiedResource(resource)}"`,
    details: { group: resource.group, kind: resource.resource },
  });
}

export function notAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError({
    code: 406,
    reason: 'NotAcceptable',
    message: `only the following media types are accepted: ${accepted.join(', ')}`,
  });
}

/**
 * No media type a route produces is in the request's `Accept`: the reference's go-restful
 * router refuses it before any handler runs, in its own words, listing what the route produces.
 */
export function notAcceptableByRoute(produces: readonly string[]): StatusError {
  return new StatusError({
    code: 406,
    reason: 'NotAcceptable',
    message: `406: Not Acceptable\n\nAvailable representations: ${produces.join(', ')}`,
    details: {},
  });
}

/** The request's `Content-Type` is none a route consumes: the go-restful router's refusal. */
export function unsupportedMediaTypeByRoute(): StatusError {
  return new StatusError({
    code: 415,
    reason: 'UnsupportedMediaType',
    message: '415: Unsupported Media Type',
    details: {},
  });
}

export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError({
    code: 415,
    reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  });
}

export function requestEntityTooLarge(limitBytes: number): StatusError {
  return new StatusError({
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: `Request entity too large: limit is ${limitBytes}`,
  });
}

export function gone(message: string): StatusError {
  return new StatusError({ code: 410, reason: 'Gone', message });
}

/** 410 Expired; an expired continue token comes with a fresh one that resumes at the newest revision. */
export function resourceExpired(message: string, continueToken?: string): StatusError {
  return new StatusError({ code: 410, reason: 'Expired', message, continueToken });
}

export function timeout(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 504,
    reason: 'Timeout',
    message: `Timeout: ${message}`,
    details: { retryAfterSeconds },
  });
}

/** A read waited in vain for the store or cache to reach the requested revision. */
export function tooLargeResourceVersion(options: {
  requested: number;
  current: number;
  retryAfterSeconds: number;
}): StatusError {
  return new StatusError({
    code: 504,
    reason: 'Timeout',
    message: `Timeout: Too large resource version: ${options.requested}, current: ${options.current}`,
    details: {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: options.retryAfterSeconds,
    },
  });
}

/** A 429; without `retryAfterSeconds` it has no details and no Retry-After, as the reference's NewTooManyRequestsError. */
export function tooManyRequests(message: string, retryAfterSeconds?: number): StatusError {
  return new StatusError({
    code: 429,
    reason: 'TooManyRequests',
    message,
    ...(retryAfterSeconds === undefined ? {} : { details: { retryAfterSeconds } }),
  });
}

export function internalError(cause: string): StatusError {
  return new StatusError({
    code: 500,
    reason: 'InternalError',
    message: `Internal error occurred: ${cause}`,
    details: { causes: [{ message: cause }] },
  });
}

/**
 * An error nothing classified: the reference answers 500 with its text and no reason
 * (StatusReasonUnknown), which is what clients see for most etcd failures.
 */
export function unclassified(message: string): StatusError {
  return new StatusError({ code: 500, reason: '', message });
}

/**
 * The reference's answer when a request's work ends at its deadline (FinishRequest's wording of
 * its NewTimeoutError): 504 Timeout, no Retry-After; `cause` is what ended it, Go's context
 * error or the backend's text.
 */
export function requestTimeout(cause: string): StatusError {
  return timeoutStatus(`request did not complete within requested timeout - ${cause}`);
}

/**
 * The reference's timeout filter's answer to a request still running at its deadline, which
 * reaches the client before the handler's own (measured against kube-apiserver 1.34.4).
 */
export function allottedTimeoutExceeded(): StatusError {
  return timeoutStatus('request did not complete within the allotted timeout');
}

function timeoutStatus(message: string): StatusError {
  return new StatusError({ code: 504, reason: 'Timeout', message: `Timeout: ${message}`, details: {} });
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError({ code: 503, reason: 'ServiceUnavailable', message });
}
