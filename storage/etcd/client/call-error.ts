/**
 * How an etcd call failed: the gRPC status etcd (or the transport) gave, with the method and
 * member, and whether the request certainly never reached etcd (so a write can be retried
 * without risking it applying twice).
 */

/** gRPC status codes (grpc/doc/statuscodes.md). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  OUT_OF_RANGE: 11,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

const STATUS_NAMES = new Map<number, string>(Object.entries(GrpcStatus).map(([name, code]) => [code, name]));

export class EtcdCallError extends Error {
  constructor(
    /** The gRPC method, e.g. `/etcdserverpb.KV/Range`. */
    readonly method: string,
    /** The member's URL, or "" when no member could be reached. */
    readonly endpoint: string,
    readonly code: number,
    readonly details: string,
    /** True when the request was never written to any connection. */
    readonly neverSent: boolean,
    options?: { cause?: unknown },
  ) {
    const call = method.slice(method.lastIndexOf('/') + 1);
    const where = endpoint ? ` on ${endpoint}` : '';
    super(`${details} (${call}${where}: ${STATUS_NAMES.get(code) ?? `gRPC status ${code}`})`, options);
    this.name = 'EtcdCallError';
  }
}

/**
 * A failure that another attempt, maybe on another member, can get past: the member or the
 * connection was unavailable (down, restarting, electing a leader, refusing streams). A
 * deadline is not one: it is the caller's whole budget for the call.
 */
export function isTransientFailure(error: unknown): boolean {
  return error instanceof EtcdCallError && error.code === GrpcStatus.UNAVAILABLE;
}
