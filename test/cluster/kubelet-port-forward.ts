/**
 * A kubelet's port-forward over SPDY (the kubelet stand-in's, kubelet-stand-in.ts), as the
 * reference kubelet serves it (k8s.io/kubelet pkg/cri/streaming/portforward/httpstream.go) and
 * containerd forwards each connection (its sandbox_portforward_linux.go):
 * - the handshake: `X-Stream-Protocol-Version` must offer `portforward.k8s.io`; then 101 to
 *   `SPDY/3.1`;
 * - the client opens a pair of streams per connection, `streamType` error and data, each naming
 *   its `port` and the pair's `requestID` (older clients name none: the pair is found from the
 *   stream IDs, as the kubelet finds it). A stream without a valid port or type is refused; a pair
 *   not complete within 30 s has the kubelet's timeout written on its error stream;
 * - a complete pair dials the pod's port, and bytes flow both ways with half-close: the client's
 *   FIN on the data stream shuts the connection's write side, the pod's FIN ends the data stream
 *   (FIN). Once one way has ended the other has 1 s to end too, then both are closed; the kubelet
 *   then ends both streams (FIN). containerd passes no half-close on: it closes the whole
 *   connection and the stream once the second way has ended or 1 s after the first did, so a pod
 *   reads the client's end only then, and cannot answer after it; the stand-in keeps its 1 s
 *   bound and passes each end on at once. A forward that fails writes its error on the error
 *   stream and resets both streams, as the kubelet does.
 */
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { dialErrorText } from '../../server/proxy/forwarding';
import type { HeaderPairs } from '../../server/kubelet/spdy-header-block';
import { SpdySession, type SpdyStream } from '../../server/kubelet/spdy-session';

const PROTOCOL = 'portforward.k8s.io';
/** The kubelet's default `streamCreationTimeout`. */
const STREAM_CREATION_TIMEOUT_MS = 30_000;
/** containerd's grace for the second way of a forward once the first has ended. */
const SECOND_WAY_GRACE_MS = 1_000;

/** Where a pod's port is reached on this host. */
export interface ForwardTarget {
  readonly address: string;
  readonly port: number;
}

/** The pod's target for `port`; rejects with the reason the forward fails (kwok's words where kwok has them). */
export type TargetLookup = (pod: PodOfRequest, port: number) => Promise<ForwardTarget>;

/** The pod a `/portForward/<namespace>/<name>[/<uid>]` request names. */
export interface PodOfRequest {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** The values a header carries: several headers of one name, or one of comma-separated values. */
function commaSeparatedValues(value: string | string[] | undefined): string[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value])
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** An HTTP answer written on the raw connection of an upgrade request, which is then closed. */
function answerAndClose(socket: Duplex, status: string, headers: Readonly<Record<string, string>>, body: string): void {
  const lines = [`HTTP/1.1 ${status}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close');
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** One connection's streams, gathered until both are there; the port is the data stream's. */
interface StreamPair {
  data?: { readonly stream: SpdyStream; readonly port: number };
  error?: SpdyStream;
  readonly timer: NodeJS.Timeout;
}

/**
 * Serves one port-forward request that asks to switch to SPDY/3.1 on `socket` (its `head`, the
 * bytes after its headers): the handshake, then the session's stream pairs, each forwarded to
 * the target `lookup` gives.
 */
export function servePortForward(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  pod: PodOfRequest,
  lookup: TargetLookup,
): void {
  const offered = commaSeparatedValues(req.headers['x-stream-protocol-version']);
  if (offered.length === 0) {
    // httpstream.Handshake returns its error without writing; Go's server then answers an empty 200.
    answerAndClose(socket, '200 OK', {}, '');
    return;
  }
  if (!offered.includes(PROTOCOL)) {
    answerAndClose(
      socket,
      '403 Forbidden',
      {
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Accepted-Stream-Protocol-Versions': PROTOCOL,
        'X-Content-Type-Options': 'nosniff',
      },
      `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${PROTOCOL}]\n`,
    );
    return;
  }
  socket.write(
    [
      'HTTP/1.1 101 Switching Protocols',
      'Connection: Upgrade',
      'Upgrade: SPDY/3.1',
      `X-Stream-Protocol-Version: ${PROTOCOL}`,
    ].join('\r\n') + '\r\n\r\n',
  );

  const pairs = new Map<string, StreamPair>();
  const session = new SpdySession(socket, head, (headers) => {
    if (!validStream(headers)) return undefined;
    return (stream) => {
      stream.on('error', () => undefined);
      addToPair(requestIdOf(headers, stream.id), headers, stream);
    };
  });
  session.on('error', () => undefined);
  session.on('close', () => {
    for (const pair of pairs.values()) clearTimeout(pair.timer);
    pairs.clear();
  });

  function addToPair(requestId: string, headers: HeaderPairs, stream: SpdyStream): void {
    let pair = pairs.get(requestId);
    if (pair === undefined) {
      const timer = setTimeout(() => {
        pairs.delete(requestId);
        // The kubelet names the connection by its address in memory; the pod stands for it here.
        pair?.error?.write(`(conn=${pod.namespace}/${pod.name}, request=${requestId}) timed out waiting for streams`);
      }, STREAM_CREATION_TIMEOUT_MS);
      pair = { timer };
      pairs.set(requestId, pair);
    }
    const slot = headers.streamtype === 'error' ? 'error' : 'data';
    if (pair[slot] !== undefined) {
      pair.error?.write(`error processing stream for request ${requestId}: ${slot} stream already assigned`);
      return;
    }
    if (slot === 'error') pair.error = stream;
    else pair.data = { stream, port: Number(headers.port) };
    const { data, error } = pair;
    if (data === undefined || error === undefined) return;
    clearTimeout(pair.timer);
    pairs.delete(requestId);
    void forward(pod, data.port, data.stream, error, lookup);
  }
}

/** The kubelet's checks of a stream's headers before it accepts it (its httpStreamReceived). */
function validStream(headers: HeaderPairs): boolean {
  const port = headers.port ?? '';
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 0xffff) return false;
  return headers.streamtype === 'error' || headers.streamtype === 'data';
}

/**
 * The pair a stream belongs to: its `requestID`, or, from a client that sends none, the error
 * stream's ID (the data stream's is two more), as the kubelet pairs an older client's streams.
 */
function requestIdOf(headers: HeaderPairs, streamId: number): string {
  const requestId = headers.requestid ?? '';
  if (requestId !== '') return requestId;
  return String(headers.streamtype === 'error' ? streamId : streamId - 2);
}

/** The pod's port `port` joined to the data stream; the kubelet's ending of both streams after. */
async function forward(
  pod: PodOfRequest,
  port: number,
  data: SpdyStream,
  error: SpdyStream,
  lookup: TargetLookup,
): Promise<void> {
  try {
    const target = await lookup(pod, port);
    await joinHalfClosing(data, await dial(target));
    data.end();
    error.end();
  } catch (failure) {
    // kwok names a pod `<name>/<namespace>` to its forwarder, which the kubelet's message carries.
    error.write(
      `error forwarding port ${port} to pod ${pod.name}/${pod.namespace}, uid ${pod.uid}: ${(failure as Error).message}`,
      () => {
        data.destroy();
        error.destroy();
      },
    );
  }
  // What the client still sends on a stream this side is done with is dropped, as the kubelet drops it.
  data.resume();
  error.resume();
}

function dial(target: ForwardTarget): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.address, port: target.port, allowHalfOpen: true });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `failed to dial ${target.address}:${target.port}: ${dialErrorText(error, target.address, target.port)}`,
        ),
      ),
    );
  });
}

/**
 * Bytes both ways, each way's end passed on as a half-close; settles once both ways have ended,
 * or 1 s after the first did, the connection then closed. Rejects on the connection's error.
 */
function joinHalfClosing(data: SpdyStream, socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    let waysEnded = 0;
    let grace: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(grace);
      data.unpipe(socket);
      socket.unpipe(data);
      socket.destroy();
      resolve();
    };
    const wayEnded = () => {
      waysEnded++;
      if (waysEnded === 2) finish();
      else grace = setTimeout(finish, SECOND_WAY_GRACE_MS);
    };
    socket.on('error', (failure) => {
      clearTimeout(grace);
      socket.destroy();
      reject(failure);
    });
    // pipe() ends the destination when the source ends: the socket's end() sends its FIN, the stream's its FIN.
    data.pipe(socket).once('finish', wayEnded);
    socket.pipe(data).once('finish', wayEnded);
  });
}
