/**
 * A unary gRPC client to a plugin on a unix socket (a KMS v2 plugin, an external JWT signer),
 * over Node's own HTTP/2: a few unary calls do not warrant a gRPC library in the server's start
 * path. It sits in storage/, the lowest layer that both the KMS envelope (storage/transform)
 * and the server's authentication use. Framing per the gRPC HTTP/2
 * protocol: a POST to `/<service>/<method>`, each message prefixed by a compression flag and a
 * 4-byte length, the status in the trailers (or in the headers of a trailers-only answer).
 *
 * As the reference's client (WaitForReady), a call waits for the socket to accept a
 * connection until its timeout; a lost connection is dialled again on the next call.
 */
import { connect as http2Connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { connect as netConnect } from 'node:net';

/** gRPC's status codes by number, named as Go's `codes.Code.String()` prints them. */
const CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

const RECONNECT_DELAY_MS = 100;

/** The errors of connecting to a unix socket, as Go's syscall package words them. */
const DIAL_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  ECONNREFUSED: 'connection refused',
  EACCES: 'permission denied',
  ENOTSOCK: 'socket operation on non-socket',
  EAGAIN: 'resource temporarily unavailable',
};

/**
 * The `code`/`status` label of the reference's plugin metrics: `OK`, the gRPC code name of the
 * failure or of an error it wraps (its `cause`, as Go's errors.As looks through `%w`), or
 * `unknown-non-grpc`.
 */
export function grpcStatusLabel(error: unknown): string {
  if (error === undefined) return 'OK';
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause)
    if (cause instanceof GrpcStatusError) return cause.codeName;
  return 'unknown-non-grpc';
}

/** A failed call, with its gRPC code name (`Unavailable`) for the metrics that label by it. */
export class GrpcStatusError extends Error {
  constructor(
    readonly codeName: string,
    message: string,
  ) {
    super(message);
    this.name = 'GrpcStatusError';
  }
}

export interface UnaryCall {
  /** `/<package>.<service>/<method>`, e.g. `/v2.KeyManagementService/Status` */
  readonly method: string;
  readonly request: Buffer;
  readonly timeoutMs: number;
}

export class GrpcUnixClient {
  private session: ClientHttp2Session | undefined;
  private closed = false;

  constructor(private readonly socketPath: string) {}

  /** The response message; throws a GrpcStatusError (Go's `rpc error: code = ... desc = ...`) on failure. */
  async call(call: UnaryCall): Promise<Buffer> {
    const deadline = Date.now() + call.timeoutMs;
    for (;;) {
      if (this.closed) throw rpcError('Canceled', 'grpc: the client connection is closing');
      let session: ClientHttp2Session;
      try {
        session = await this.connected(deadline);
      } catch (error) {
        if (Date.now() + RECONNECT_DELAY_MS >= deadline) throw rpcError('DeadlineExceeded', this.dialFailure(error));
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
        continue;
      }
      return this.exchange(session, call, deadline);
    }
  }

  /**
   * Why the last dial failed, as grpc-go's picker reports it at the deadline: the socket path
   * (`@name` for an abstract one) and the system's reason in Go's words; or, when no dial
   * failed in a way Go names, the wait itself.
   */
  private dialFailure(error: unknown): string {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === undefined ? undefined : DIAL_REASONS[code];
    if (reason === undefined) return 'context deadline exceeded while waiting for connections to become ready';
    const path = this.socketPath.startsWith('\0') ? `@${this.socketPath.slice(1)}` : this.socketPath;
    return `latest balancer error: connection error: desc = "transport: Error while dialing: dial unix ${path}: connect: ${reason}"`;
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }

  private connected(deadline: number): Promise<ClientHttp2Session> {
    if (this.session !== undefined && !this.session.closed && !this.session.destroyed)
      return Promise.resolve(this.session);
    return new Promise((resolve, reject) => {
      const session = http2Connect('http://localhost', { createConnection: () => netConnect(this.socketPath) });
      const timer = setTimeout(
        () => {
          session.destroy();
          reject(new Error('connection attempt timed out'));
        },
        Math.max(1, deadline - Date.now()),
      );
      session.once('connect', () => {
        clearTimeout(timer);
        session.unref();
        this.session = session;
        session.once('close', () => {
          if (this.session === session) this.session = undefined;
        });
        resolve(session);
      });
      session.once('error', (error) => {
        clearTimeout(timer);
        session.destroy();
        reject(error);
      });
    });
  }

  private exchange(session: ClientHttp2Session, call: UnaryCall, deadline: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const remainingMs = Math.max(1, deadline - Date.now());
      const stream = session.request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: call.method,
        [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        te: 'trailers',
        'grpc-timeout': `${remainingMs}m`,
      });
      const chunks: Buffer[] = [];
      let headers: IncomingHttpHeaders = {};
      const timer = setTimeout(() => {
        stream.close(constants.NGHTTP2_CANCEL);
        reject(rpcError('DeadlineExceeded', 'context deadline exceeded'));
      }, remainingMs);
      const finish = (trailers: IncomingHttpHeaders) => {
        clearTimeout(timer);
        const status = Number(trailers['grpc-status'] ?? headers['grpc-status'] ?? 2);
        if (status !== 0) {
          const message = decodeURIComponent(String(trailers['grpc-message'] ?? headers['grpc-message'] ?? ''));
          reject(rpcError(CODE_NAMES[status] ?? 'Unknown', message));
          return;
        }
        try {
          resolve(unframe(Buffer.concat(chunks)));
        } catch (error) {
          reject(rpcError('Internal', (error as Error).message));
        }
      };
      let trailers: IncomingHttpHeaders | undefined;
      stream.on('response', (responseHeaders) => (headers = responseHeaders));
      stream.on('trailers', (received) => (trailers = received));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => finish(trailers ?? {}));
      stream.on('error', (error) => {
        clearTimeout(timer);
        reject(rpcError('Unavailable', error.message));
      });
      stream.end(frame(call.request));
    });
  }
}

function rpcError(codeName: string, description: string): GrpcStatusError {
  return new GrpcStatusError(codeName, `rpc error: code = ${codeName} desc = ${description}`);
}

function frame(message: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new Error('grpc: response carries no message');
  if (body[0] !== 0) throw new Error('grpc: compressed responses are not accepted');
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) throw new Error('grpc: response message is truncated');
  return body.subarray(5, 5 + length);
}
