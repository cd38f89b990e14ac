/**
 * The one error class that reaches clients: it carries a `metav1.Status`, and
 * `server/responsewriters/write-status.ts` is the one place that turns it into a response.
 */
import { wellFormed } from '../../api/go-bytes';

export interface StatusCause {
  /** The JSON and protobuf name of the reference's StatusCause.Type. */
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  /** The resource (plural) for most errors; the kind for Invalid, as the reference does. */
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/** `metav1.Status` with `status: Failure`; fields in the reference's JSON order. */
export interface Status {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  /** ListMeta: an expired continue token carries a fresh one here. */
  readonly metadata: { readonly continue?: string };
  readonly status: 'Failure';
  readonly message: string;
  /** Absent for errors the server could not classify (the reference's StatusReasonUnknown, omitted when empty). */
  readonly reason?: string;
  readonly details?: StatusDetails;
  readonly code: number;
}

export interface StatusInit {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
  readonly details?: StatusDetails;
  readonly continueToken?: string;
}

export class StatusError extends Error {
  readonly status: Status;

  constructor(init: StatusInit) {
    super(init.message);
    this.name = 'StatusError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: init.continueToken === undefined ? {} : { continue: init.continueToken },
      status: 'Failure',
      message: wellFormed(init.message),
      ...(init.reason === '' ? {} : { reason: init.reason }),
      details: init.details === undefined ? undefined : withoutEmptyFields(init.details),
      code: init.code,
    };
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): string {
    return this.status.reason ?? '';
  }
}

/**
 * The reference omits empty strings and empty cause lists (`omitempty`). Its texts may hold a
 * stray byte of a request's path or query, which its JSON writes as U+FFFD (wellFormed).
 */
function withoutEmptyFields(details: StatusDetails): StatusDetails {
  const causes = details.causes?.map((cause) => ({
    ...cause,
    ...(cause.message === undefined ? {} : { message: wellFormed(cause.message) }),
    ...(cause.field === undefined ? {} : { field: wellFormed(cause.field) }),
  }));
  return {
    ...(details.name ? { name: wellFormed(details.name) } : {}),
    ...(details.group ? { group: details.group } : {}),
    ...(details.kind ? { kind: details.kind } : {}),
    ...(details.uid ? { uid: details.uid } : {}),
    ...(causes && causes.length > 0 ? { causes } : {}),
    ...(details.retryAfterSeconds ? { retryAfterSeconds: details.retryAfterSeconds } : {}),
  };
}
