/**
 * Translates whatever a handler caught into the `StatusError` a client sees. Storage speaks
 * in storage terms (storage/errors.ts); this is the boundary where those become Status codes.
 */
import {
  CompactedError,
  FutureRevisionError,
  ObjectError,
  StoreUnavailableError,
} from '../../storage/errors';
import type { GroupResource } from './catalogue';
import { internalError, resourceExpired, tooLargeResourceVersion, unclassified } from './catalogue';
import { StatusError, type StatusDetails } from './status-error';

/** What the handler knows about the request, to fill `details` the storage layer leaves out. */
export interface ErrorContext {
  readonly resource?: GroupResource;
  readonly name?: string;
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
  // The reference maps every etcd failure to a 500 with the backend's text and no reason;
  // clients retry 500s on reads either way, so a 503 would buy nothing and differ.
  if (error instanceof StoreUnavailableError) return unclassified(error.message);
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
          retryAfterSeconds: error.details.retryAfterSeconds ?? 1,
        },
      });
    case 'BadRequest':
      return new StatusError({ code: 400, reason: 'BadRequest', message: error.message });
    case 'Invalid':
      // The reference rejects such objects (e.g. a create carrying a resourceVersion) with a
      // plain error that reaches the client as a 500 without reason.
      return unclassified(error.message);
    case 'InternalError':
      // A corrupt object's storage error reaches the client wrapped, as the reference's NewInternalError does.
      if (error.details.corruptKey !== undefined) return internalError(error.message);
      return new StatusError({
        code: 500,
        reason: 'InternalError',
        message: error.message,
        details: { causes: [{ message: error.message }] },
      });
    case 'StorageReadError':
      return new StatusError({
        code: 500,
        reason: 'StorageReadError',
        message: error.message,
        details: { ...objectDetails, name: error.details.name, causes: error.details.causes?.map(({ type, field, message }) => ({ reason: type, field, message })) },
      });
  }
}
