/**
 * gRPC calls to one etcd cluster over `node:http2`: one HTTP/2 connection at a time, to one of
 * the members, and failover among them.
 *
 * - Calls go to the current member. When connecting to it fails (refused, reset, TLS refused,
 *   or no answer in `CONNECT_TIMEOUT_MS`), it is skipped for `SKIP_MS` and the next member is
 *   tried at once, so a dead member costs one refused connection, not a call.
 * - A member that answers UNAVAILABLE `UNAVAILABLE_IN_A_ROW` times in a row (no leader, leader
 *   changing, shutting down) is skipped the same way; any other answer resets the count.
 * - A connection that closes (the member died) fails its calls with UNAVAILABLE; the next
 *   call connects again, to the same member if it is back, else onward. After a GOAWAY (a
 *   member stopping) the calls it took finish, and new ones open a new connection.
 * - Each unary call has a deadline: it is sent to etcd as `grpc-timeout` (so etcd stops
 *   working on it too) and the call fails with DEADLINE_EXCEEDED when it passes here.
 * - TLS: for https URLs, with the given CA (else the system's roots) and client certificate.
 *   Node checks the server's certificate against the URL's host, IP addresses included.
 * - A member that stops answering without closing its connections (a frozen process, a host
 *   gone from the network) is found by HTTP/2 pings, as the reference's etcd client finds it by
 *   gRPC keepalive (30 s, then 10 s for the answer): while calls or streams are open, a ping
 *   every `keepAlive.timeMs`; one unanswered in `keepAlive.timeoutMs` drops the connection, its
 *   calls and watches fail with UNAVAILABLE, and the next member takes over. No pings on an idle
 *   connection: etcd answers those with GOAWAY (too_many_pings). A frozen member's listening
 *   socket still accepts connections (the kernel does): the first call on one is pinged too.
 */
import * as http2 from 'node:http2';
import { EtcdCallError, GrpcStatus } from './call-error';
import { frameMessage, MessageDecoder } from './framing';

export interface ChannelTls {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

export interface KeepAlive {
  /** How often a connection with open calls is pinged. */
  readonly timeMs: number;
  /** How long a ping may go unanswered before the connection is dropped. */
  readonly timeoutMs: number;
}

export interface ChannelOptions {
  /** Member client URLs, `http://host:port` or `https://host:port`, all of one scheme. */
  readonly endpoints: readonly string[];
  /** For https endpoints. */
  readonly tls?: ChannelTls;
  /** Default: the reference's, 30 s and 10 s. */
  readonly keepAlive?: KeepAlive;
}

export const DEFAULT_KEEP_ALIVE: KeepAlive = { timeMs: 30_000, timeoutMs: 10_000 };

const CONNECT_TIMEOUT_MS = 3_000;
const SKIP_MS = 1_000;
const UNAVAILABLE_IN_A_ROW = 3;
/**
 * Flow-control windows: HTTP/2's default 64 KiB would make a list of thousands of objects wait
 * for a window update every 64 KiB. Credit, not memory: data is consumed as it arrives.
 */
const STREAM_WINDOW_BYTES = 4 * 1024 * 1024;
const SESSION_WINDOW_BYTES = 32 * 1024 * 1024;
/** nghttp2's cap on a session's buffered data (MiB); a large Range answer is buffered whole. */
const MAX_SESSION_MEMORY_MB = 256;

const { HTTP2_HEADER_PATH, HTTP2_HEADER_METHOD, HTTP2_HEADER_STATUS, HTTP2_HEADER_CONTENT_TYPE, HTTP2_HEADER_TE } =
  http2.constants;

class Member {
  session: http2.ClientHttp2Session | undefined;
  connecting: Promise<http2.ClientHttp2Session> | undefined;
  skipUntil = 0;
  unavailableInARow = 0;
  /** Calls and streams open on `session`, which decide whether it is pinged. */
  openStreams = 0;

  constructor(readonly url: string) {}
}

/** What a stream's caller is told; each callback runs at most once per message / once at the end. */
export interface StreamHandlers {
  onMessage(message: Buffer): void;
  /** The stream ended: `undefined` when etcd closed it with OK, else why. */
  onEnd(error: EtcdCallError | undefined): void;
}

/** A bidirectional gRPC stream (Watch, LeaseKeepAlive). */
export interface DuplexStream {
  readonly endpoint: string;
  send(message: Buffer): void;
  /** Ends the stream from this side; its `onEnd` is not called. */
  close(): void;
}

export class Channel {
  private readonly members: Member[];
  private current: number;
  private closed = false;
  private readonly tls: ChannelTls | undefined;
  private readonly keepAlive: KeepAlive;

  constructor(options: ChannelOptions) {
    if (options.endpoints.length === 0) throw new Error('etcd: no endpoints given');
    this.members = options.endpoints.map((url) => new Member(url.replace(/\/+$/, '')));
    this.tls = options.tls;
    this.keepAlive = options.keepAlive ?? DEFAULT_KEEP_ALIVE;
    // Replicas given the same list spread over the members instead of all using the first.
    this.current = Math.floor(Math.random() * this.members.length);
  }

  /** The member calls go to now. */
  get endpoint(): string {
    return this.members[this.current].url;
  }

  /** One request, one response. */
  unary(method: string, request: Buffer, timeoutMs: number): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    return this.connected(method, deadline).then(
      (member) =>
        new Promise<Buffer>((resolve, reject) => {
          let answer: Buffer | undefined;
          const stream = this.open(
            member,
            method,
            {
              onMessage: (message) => {
                answer = message;
              },
              onEnd: (error) => {
                clearTimeout(timer);
                if (error) reject(error);
                else if (answer) resolve(answer);
                else
                  reject(
                    new EtcdCallError(
                      method,
                      member.url,
                      GrpcStatus.INTERNAL,
                      'etcd closed the call without an answer',
                      false,
                    ),
                  );
              },
            },
            deadline,
          );
          const timer = setTimeout(
            () => {
              stream.abort();
              reject(
                new EtcdCallError(
                  method,
                  member.url,
                  GrpcStatus.DEADLINE_EXCEEDED,
                  `no answer within the deadline of ${timeoutMs} ms`,
                  false,
                ),
              );
            },
            Math.max(0, deadline - Date.now()),
          );
          stream.end(frameMessage(request));
        }),
    );
  }

  /** Opens a long-lived stream (no deadline) on the current member. */
  async duplex(method: string, handlers: StreamHandlers): Promise<DuplexStream> {
    const member = await this.connected(method, Date.now() + CONNECT_TIMEOUT_MS * this.members.length);
    const stream = this.open(member, method, handlers, undefined);
    return {
      endpoint: member.url,
      send: (message) => {
        if (!stream.closed && !stream.destroyed && stream.writable) stream.write(frameMessage(message));
      },
      close: () => stream.abort(),
    };
  }

  close(): void {
    this.closed = true;
    for (const member of this.members) {
      member.session?.close();
      member.session?.destroy();
      member.session = undefined;
    }
  }

  /** A connected member: the current one if it connects, else the next ones in turn. */
  private async connected(method: string, deadline: number): Promise<Member> {
    if (this.closed) throw new EtcdCallError(method, '', GrpcStatus.CANCELLED, 'the etcd client is closed', true);
    const first = this.members[this.current];
    if (first.session && !first.session.closed && !first.session.destroyed && first.skipUntil <= Date.now())
      return first;
    const failures: string[] = [];
    const now = Date.now();
    // Members not skipped first, from the current one on; skipped ones last, as a last resort.
    const order = this.members.map((_, i) => (this.current + i) % this.members.length);
    order.sort((a, b) => Number(this.members[a].skipUntil > now) - Number(this.members[b].skipUntil > now));
    for (const index of order) {
      const member = this.members[index];
      if (Date.now() >= deadline) break;
      try {
        await this.connect(member, Math.min(CONNECT_TIMEOUT_MS, deadline - Date.now()));
        this.current = index;
        return member;
      } catch (error) {
        member.skipUntil = Date.now() + SKIP_MS;
        failures.push(`${member.url}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const detail = failures.length > 0 ? failures.join('; ') : 'the deadline passed before a connection was made';
    throw new EtcdCallError(method, '', GrpcStatus.UNAVAILABLE, `no etcd member could be reached (${detail})`, true);
  }

  private connect(member: Member, timeoutMs: number): Promise<http2.ClientHttp2Session> {
    const live = member.session;
    if (live && !live.closed && !live.destroyed) return Promise.resolve(live);
    member.connecting ??= new Promise<http2.ClientHttp2Session>((resolve, reject) => {
      const session = http2.connect(member.url, {
        ...(this.tls ?? {}),
        maxSessionMemory: MAX_SESSION_MEMORY_MB,
        settings: { initialWindowSize: STREAM_WINDOW_BYTES, enablePush: false },
      });
      const timer = setTimeout(() => {
        session.destroy();
        reject(new Error(`no connection within ${timeoutMs} ms`));
      }, timeoutMs);
      // Errors after the first are the same failure, reported again as the session winds down.
      session.on('error', () => undefined);
      const failed = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      session.once('error', failed);
      session.once('connect', () => {
        clearTimeout(timer);
        if (this.closed) {
          session.destroy();
          reject(new Error('the etcd client is closed'));
          return;
        }
        session.setLocalWindowSize(SESSION_WINDOW_BYTES);
        // Errors of a working session reach its streams; the session is then dropped.
        session.on('error', () => this.forget(member, session));
        // A member going away (GOAWAY) still answers the calls it took: new ones go elsewhere.
        session.on('goaway', () => this.detach(member, session));
        session.on('close', () => this.forget(member, session));
        member.session = session;
        member.openStreams = 0;
        this.keepPinging(member, session);
        resolve(session);
      });
    }).finally(() => {
      member.connecting = undefined;
    });
    return member.connecting;
  }

  /**
   * Pings the session every `keepAlive.timeMs` while it has open streams; an answer that does
   * not come in `keepAlive.timeoutMs` drops it and moves calls on to the next member.
   */
  private keepPinging(member: Member, session: http2.ClientHttp2Session): void {
    const { timeMs, timeoutMs } = this.keepAlive;
    let waiting = false;
    const interval = setInterval(() => {
      if (waiting || member.session !== session || member.openStreams === 0) return;
      waiting = true;
      const timer = setTimeout(() => {
        member.skipUntil = Date.now() + SKIP_MS;
        if (this.members[this.current] === member && this.members.length > 1)
          this.current = (this.current + 1) % this.members.length;
        session.destroy(new Error(`etcd member ${member.url} did not answer a ping within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      const sent = session.ping(() => {
        clearTimeout(timer);
        waiting = false;
      });
      if (!sent) {
        clearTimeout(timer);
        waiting = false;
      }
    }, timeMs);
    interval.unref();
    session.once('close', () => clearInterval(interval));
  }

  private forget(member: Member, session: http2.ClientHttp2Session): void {
    this.detach(member, session);
    if (!session.destroyed) session.destroy();
  }

  private detach(member: Member, session: http2.ClientHttp2Session): void {
    if (member.session === session) member.session = undefined;
  }

  /**
   * Starts a call on the member's session. The stream ends exactly once through
   * `handlers.onEnd`, with etcd's status (trailers, or headers for a trailers-only answer) or
   * the transport's failure; `abort()` ends it silently. Throws when the session can no longer
   * open streams.
   */
  private open(
    member: Member,
    method: string,
    handlers: StreamHandlers,
    deadline: number | undefined,
  ): http2.ClientHttp2Stream & { abort(): void } {
    const headers: http2.OutgoingHttpHeaders = {
      [HTTP2_HEADER_METHOD]: 'POST',
      [HTTP2_HEADER_PATH]: method,
      [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      [HTTP2_HEADER_TE]: 'trailers',
    };
    if (deadline !== undefined) headers['grpc-timeout'] = `${Math.max(1, deadline - Date.now())}m`;
    const session = member.session!;
    let ended = false;
    let status: number | undefined;
    let details = '';
    const decoder = new MessageDecoder();
    const end = (error: EtcdCallError | undefined) => {
      if (ended) return;
      ended = true;
      this.noteAnswer(member, error);
      handlers.onEnd(error);
    };
    const fail = (code: number, message: string, cause?: unknown) =>
      end(new EtcdCallError(method, member.url, code, message, false, { cause }));
    const readStatus = (fields: http2.IncomingHttpHeaders) => {
      const grpcStatus = fields['grpc-status'];
      if (grpcStatus === undefined) return;
      status = Number(grpcStatus);
      details = decodeGrpcMessage(fields['grpc-message']);
    };
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request(headers, { endStream: false });
    } catch (error) {
      // The session closed between the check and the request: nothing was sent.
      this.forget(member, session);
      throw new EtcdCallError(
        method,
        member.url,
        GrpcStatus.UNAVAILABLE,
        `the connection to etcd closed (${String(error)})`,
        true,
        { cause: error },
      );
    }
    member.openStreams++;
    stream.once('close', () => {
      if (member.session === session) member.openStreams--;
    });
    stream.on('response', (responseHeaders) => {
      const httpStatus = Number(responseHeaders[HTTP2_HEADER_STATUS]);
      if (httpStatus !== 200) fail(GrpcStatus.UNAVAILABLE, `etcd answered HTTP ${httpStatus}`);
      readStatus(responseHeaders);
    });
    stream.on('data', (chunk: Buffer) => {
      if (ended) return;
      let messages: Buffer[];
      try {
        messages = decoder.push(chunk);
      } catch (error) {
        fail(GrpcStatus.INTERNAL, error instanceof Error ? error.message : String(error));
        stream.close(http2.constants.NGHTTP2_CANCEL);
        return;
      }
      for (const message of messages) {
        if (ended) return;
        handlers.onMessage(message);
      }
    });
    stream.on('trailers', readStatus);
    stream.on('error', (error: Error & { code?: string }) => {
      // A refused stream (the member is going away) was never processed.
      const refused = error.code === 'ERR_HTTP2_STREAM_ERROR' && /REFUSED_STREAM/.test(error.message);
      end(
        new EtcdCallError(
          method,
          member.url,
          GrpcStatus.UNAVAILABLE,
          `the connection to etcd failed: ${error.message}`,
          refused,
          { cause: error },
        ),
      );
    });
    stream.on('close', () => {
      if (status === undefined) {
        fail(GrpcStatus.UNAVAILABLE, `etcd closed the stream without a status (HTTP/2 code ${stream.rstCode})`);
      } else if (status !== GrpcStatus.OK) {
        fail(status, details || 'no message');
      } else if (decoder.partial) {
        fail(GrpcStatus.INTERNAL, 'etcd closed the stream in the middle of a message');
      } else {
        end(undefined);
      }
    });
    return Object.assign(stream, {
      abort: () => {
        ended = true;
        if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      },
    });
  }

  /** Counts a member's UNAVAILABLE answers in a row; past the limit it is skipped for a while. */
  private noteAnswer(member: Member, error: EtcdCallError | undefined): void {
    if (error?.code !== GrpcStatus.UNAVAILABLE) {
      member.unavailableInARow = 0;
      return;
    }
    if (++member.unavailableInARow < UNAVAILABLE_IN_A_ROW) return;
    member.unavailableInARow = 0;
    member.skipUntil = Date.now() + SKIP_MS;
    if (this.members[this.current] === member && this.members.length > 1)
      this.current = (this.current + 1) % this.members.length;
  }
}

/** grpc-message is percent-encoded (gRPC over HTTP/2, "Responses"). */
function decodeGrpcMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
