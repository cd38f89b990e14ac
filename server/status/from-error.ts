/**
 * Translates whatever a handler caught into the `StatusError` a client sees. Storage speaks
 * in storage terms (storage/errors.ts); this is the boundary where those become Status codes.
 */
import {
  CompactedError,
  DeadlineExceededError,
  FutureRevisionError,
  ObjectError,
  MAX_STORED_BYTES,
  StoreUnavailableError,
  ValueTooLargeError,
} from '../../storage/errors';
import type { GroupResource } from '../../api/identity';
import {
  internalError,
  requestEntityTooLarge,
  requestTimeout,
  resourceExpired,
  tooLargeResourceVersion,
  unclassified,
} from './catalogue';
import { isCorruptObjectError } from '../../storage/objects/codec';
import { corruptListStatus, corruptObjectStatus, type CorruptObjectWording } from './corrupt-objects';
import { StatusError, type StatusDetails } from './status-error';

/** What the handler knows about the request, to fill `details` the storage layer leaves out. */
export interface ErrorContext {
  readonly resource?: GroupResource;
  readonly name?: string;
  /** Absent: the reference's default words (the gate AllowUnsafeMalformedObjectDeletion off). */
  readonly corruptObjects?: CorruptObjectWording;
}

/**
 * Whether an error is what the reference calls a panic: one no stage or handler meant to answer
 * (neither a Status nor a storage error) that becomes a 500.
 */
export function isPanic(error: unknown): boolean {
  return (
    !(error instanceof StatusError) && !(error instanceof ObjectError) && statusErrorFrom(error).status.code === 500
  );
}

export function statusErrorFrom(error: unknown, context: ErrorContext = {}): StatusError {
  if (error instanceof StatusError) return error;
  if (error instanceof ObjectError) return fromObjectError(error, context);
  if (error instanceof CompactedError) {
    return resourceExpired(`too old resource version: ${error.requestedRevision} (${error.compactedRevision})`);
  }
  if (error instanceof FutureRevisionError) {
    return tooLargeResourceVersion({
      requested: error.requestedRevision,
      current: error.currentRevision,
      retryAfterSeconds: 1,
    });
  }
  // The reference answers 500 for an object past etcd's request limit (and its client's 2 MiB
  // send cap); the object is the client's to shrink, as for a body past 3 MiB.
  if (error instanceof ValueTooLargeError) return requestEntityTooLarge(MAX_STORED_BYTES);
  // With etcd down the reference keeps trying until the request's deadline and answers what its
  // timeout filter answers: 504 Timeout, no Retry-After (measured against kube-apiserver 1.34.4
  // with its etcd stopped). Capstan gives up sooner, with the same answer and the backend's text.
  // A write refused at the request's deadline gets the timeout filter's very answer.
  if (error instanceof StoreUnavailableError || error instanceof DeadlineExceededError)
    return requestTimeout(error.message);
  if (error instanceof Error) return unclassified(error.message);
  return unclassified(String(error));
}

function fromObjectError(error: ObjectError, context: ErrorContext): StatusError {
  const objectDetails: StatusDetails = {
    name: error.details.name ?? context.name,
    group: context.resource?.group,
    kind: context.resource?.resource,
  };
  switch (error.reason) {
    case 'NotFound':
      return new StatusError({ code: 404, reason: 'NotFound', message: error.message, details: objectDetails });
    case 'AlreadyExists':
      return new StatusError({ code: 409, reason: 'AlreadyExists', message: error.message, details: objectDetails });
    case 'Conflict':
      return new StatusError({ code: 409, reason: 'Conflict', message: error.message, details: objectDetails });
    case 'Expired':
      return resourceExpired(error.message, error.details.continueToken);
    case 'TooLargeResourceVersion':
      return new StatusError({
        code: 504,
        reason: 'Timeout',
        message: error.message,
        details: {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          // 0: refused at once, with no advice to retry.
          ...(error.details.retryAfterSeconds === 0 ? {} : { retryAfterSeconds: error.details.retryAfterSeconds ?? 1 }),
        },
      });
    case 'BadRequest':
      return new StatusError({ code: 400, reason: 'BadRequest', message: error.message });
    case 'Invalid':
      // The reference rejects such objects (e.g. a create carrying a resourceVersion) with a
      // plain error that reaches the client as a 500 without reason.
      return unclassified(error.message);
    case 'InternalError':
      if (isCorruptObjectError(error)) return corruptObjectStatus(error.details, context.corruptObjects);
      // Any storage.InternalError reaches the client wrapped, as the reference's NewInternalError does.
      if (error.details.storageInternal) return internalError(error.message);
      return new StatusError({
        code: 500,
        reason: 'InternalError',
        message: error.message,
        details: { causes: [{ message: error.message }] },
      });
    case 'StorageReadError':
      return corruptListStatus(error, objectDetails, context.corruptObjects);
  }
}
