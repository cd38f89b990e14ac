/**
 * exec and attach over WebSocket `v5.channel.k8s.io`, translated to SPDY toward the kubelet (which
 * speaks no v5), as the reference's StreamTranslatorHandler does (feature gate
 * TranslateStreamCloseWebsocketRequests):
 * - the client's WebSocket is accepted first, with v5 only, and an empty message is sent on the
 *   first channel the client reads (stdout, else stderr, else error), so the client knows the
 *   streams are ready;
 * - the kubelet's `/exec` or `/attach` is asked to switch to SPDY/3.1 with the remote-command
 *   protocols client-go offers (v4, v3, v2), and its streams are opened: error, then stdin,
 *   stdout, stderr (not with a TTY) and resize (with a TTY);
 * - a message's first byte names its channel: stdin and resize go to the kubelet, stdout and
 *   stderr come back; v5's close signal (255, then the channel) half-closes stdin or resize;
 * - once stdout and stderr have ended, what the kubelet wrote on its error stream becomes the
 *   Status sent on the error channel (Success, the command's exit code as NonZeroExitCode, or
 *   the failure), and the WebSocket closes. A failure to reach the kubelet is that Status too:
 *   the switch has already been answered.
 * Backpressure both ways: the WebSocket is not read while the kubelet's stdin is full, and the
 * kubelet's streams are not read while more than a bound of output waits to reach the client.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from '../kubelet/spdy-session';
import { readAtMost } from '../proxy/forwarding';
import type { Upstream } from '../proxy/upstream';
import { acceptWebSocket, offeredSubprotocols } from './websocket-accept';

export const V5_PROTOCOL = 'v5.channel.k8s.io';

/** The remote-command protocols asked of the kubelet, best first, as client-go's SPDY executor asks them (v1 is not spoken here). */
const KUBELET_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io'];

const enum Channel {
  Stdin = 0,
  Stdout = 1,
  Stderr = 2,
  Error = 3,
  Resize = 4,
}
/** v5's close signal: this byte, then the channel to half-close. */
const STREAM_CLOSE = 255;

/** Output waiting to be written to the client beyond which the kubelet's streams are not read. */
const MAX_PENDING_OUTPUT_BYTES = 1 << 20;
/** Up to this much of the kubelet's error stream, or of a refusal's body, is read. */
const MAX_ERROR_BYTES = 64 * 1024;

export interface StreamOptions {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

/** A Status as the reference's translator writes it on the error channel (Go's field order, no kind). */
interface ChannelStatus {
  readonly metadata: Record<string, never>;
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: string;
  readonly details?: unknown;
  readonly code?: number;
}

const SUCCESS: ChannelStatus = { metadata: {}, status: 'Success' };

/** The reference's NewInternalError. */
function internalErrorStatus(message: string): ChannelStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}

function exitCodeStatus(code: number): ChannelStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: command terminated with exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

interface KubeletStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: { causes?: { reason?: string; message?: string }[] };
}

/**
 * What the kubelet's error stream says, as client-go reads it and the reference's translator
 * turns the result into a Status: v4 carries a Status, older protocols a message.
 */
export function statusOfErrorStream(protocol: string, text: string): ChannelStatus {
  if (text === '') return SUCCESS;
  if (protocol !== 'v4.channel.k8s.io') return internalErrorStatus(`error executing remote command: ${text}`);
  let status: KubeletStatus;
  try {
    status = JSON.parse(text) as KubeletStatus;
  } catch (error) {
    return internalErrorStatus(`error stream protocol error: ${(error as Error).message} in ${JSON.stringify(text)}`);
  }
  if (status.status === 'Success') return SUCCESS;
  if (status.status !== 'Failure') return internalErrorStatus('error stream protocol error: unknown error');
  if (status.reason !== 'NonZeroExitCode') return internalErrorStatus(status.message ?? '');
  if (status.details === undefined) return internalErrorStatus('error stream protocol error: details must be set');
  const cause = (status.details.causes ?? []).find((candidate) => candidate.reason === 'ExitCode');
  if (cause === undefined) return internalErrorStatus('error stream protocol error: no ExitCode cause given');
  const code = /^\d+$/.test(cause.message ?? '') ? Number(cause.message) : NaN;
  if (!(code <= 255))
    return internalErrorStatus(
      `error stream protocol error: invalid exit code value ${JSON.stringify(cause.message ?? '')}`,
    );
  return exitCodeStatus(code);
}

/** A kubelet's refusal to switch, as client-go reads it: its Status if the body is one, else its text. */
function refusalStatus(body: string): ChannelStatus {
  try {
    const status = JSON.parse(body) as KubeletStatus & { kind?: string; code?: number };
    if (status.kind === 'Status') {
      return {
        metadata: {},
        status: status.status === 'Success' ? 'Success' : 'Failure',
        message: status.message,
        reason: status.reason,
        details: status.details,
        code: status.code,
      };
    }
  } catch {
    // Not a Status: its text is the message.
  }
  return internalErrorStatus(`unable to upgrade connection: ${body.trim()}`);
}

/** Whether the client offers `v5.channel.k8s.io` on a WebSocket request: the reference's IsWebSocketRequestWithStreamCloseProtocol. */
export function offersStreamClose(req: IncomingMessage): boolean {
  return offeredSubprotocols(req).includes(V5_PROTOCOL);
}

/** Channel byte then data, as one binary message. */
function framed(channel: Channel, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([channel]), data]);
}

/**
 * Translates the client's v5 WebSocket to the kubelet's SPDY streams until both are done.
 * `openKubelet` starts the kubelet's request with the headers given.
 */
export async function translateToSpdy(
  req: IncomingMessage,
  socket: Duplex,
  options: StreamOptions,
  openKubelet: (headers: Record<string, string | string[]>) => Upstream,
): Promise<void> {
  const ws = await acceptWebSocket(req, socket, V5_PROTOCOL);
  if (ws === undefined) return;
  ws.on('error', () => ws.terminate());
  // The client may write at once; what it writes waits until the kubelet's streams are open.
  ws.pause();
  const readyChannel = options.stdout ? Channel.Stdout : options.stderr ? Channel.Stderr : Channel.Error;
  ws.send(framed(readyChannel, Buffer.alloc(0)));
  const finish = (status: ChannelStatus) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(framed(Channel.Error, Buffer.from(JSON.stringify(status))));
    ws.close(1000);
  };

  const upstream = openKubelet({
    connection: 'Upgrade',
    upgrade: 'SPDY/3.1',
    'x-stream-protocol-version': KUBELET_PROTOCOLS,
  });
  let clientGone = false;
  ws.on('close', () => {
    clientGone = true;
    upstream.abort();
  });
  let answered;
  try {
    answered = await upstream.answer;
  } catch (error) {
    finish(internalErrorStatus((error as Error).message));
    return;
  }
  if (!answered.upgraded) {
    finish(refusalStatus(await readAtMost(answered.answer, MAX_ERROR_BYTES)));
    return;
  }
  const protocol = String(answered.answer.headers['x-stream-protocol-version'] ?? '');
  if (!KUBELET_PROTOCOLS.includes(protocol)) {
    answered.socket.destroy();
    finish(
      internalErrorStatus(
        `unable to upgrade streaming request: the kubelet chose no protocol of ${KUBELET_PROTOCOLS.join(', ')} (${JSON.stringify(protocol)})`,
      ),
    );
    return;
  }
  const session = new SpdySession(answered.socket, answered.head);
  session.on('error', () => undefined);
  if (clientGone) {
    session.close();
    return;
  }
  ws.on('close', () => session.close());
  const open = (type: string) => session.openStream({ streamtype: type });
  const errorStream = open('error');
  const stdin = options.stdin ? open('stdin') : undefined;
  const outputs: [Channel, SpdyStream][] = [];
  if (options.stdout) outputs.push([Channel.Stdout, open('stdout')]);
  if (options.stderr && !options.tty) outputs.push([Channel.Stderr, open('stderr')]);
  const resize = options.tty ? open('resize') : undefined;
  for (const stream of [errorStream, stdin, resize, ...outputs.map(([, stream]) => stream)])
    stream?.on('error', () => undefined);

  // Client to kubelet: the WebSocket is paused while stdin's buffer is full.
  const inputs: Partial<Record<number, SpdyStream>> = { [Channel.Stdin]: stdin, [Channel.Resize]: resize };
  ws.on('message', (data: Buffer) => {
    if (data.length === 0) return;
    if (data[0] === STREAM_CLOSE) {
      // A malformed close signal ends the connection, as the reference's reader stops there.
      if (data.length !== 2 || data[1] > Channel.Resize) ws.terminate();
      else inputs[data[1]]?.end();
      return;
    }
    const input = inputs[data[0]];
    if (input === undefined || input.writableEnded || input.destroyed) return;
    if (!input.write(data.subarray(1))) {
      ws.pause();
      input.once('drain', () => ws.resume());
    }
  });

  ws.resume();

  // Kubelet to client: its streams are paused while too much output waits for the client.
  let pending = 0;
  const sent = (size: number) => () => {
    pending -= size;
    if (pending <= MAX_PENDING_OUTPUT_BYTES) for (const [, stream] of outputs) stream.resume();
  };
  const outputsEnded = outputs.map(
    ([channel, stream]) =>
      new Promise<void>((resolve) => {
        stream.on('data', (chunk: Buffer) => {
          if (ws.readyState !== ws.OPEN) return;
          const message = framed(channel, chunk);
          pending += message.length;
          ws.send(message, sent(message.length));
          if (pending > MAX_PENDING_OUTPUT_BYTES) for (const [, output] of outputs) output.pause();
        });
        stream.once('end', resolve);
        stream.once('close', resolve);
      }),
  );
  const errorStatus = readAtMost(errorStream, MAX_ERROR_BYTES).then(
    (text) => statusOfErrorStream(protocol, text),
    (error: Error) => internalErrorStatus(`error reading from error stream: ${error.message}`),
  );
  await Promise.all(outputsEnded);
  finish(await errorStatus);
  session.close();
}
