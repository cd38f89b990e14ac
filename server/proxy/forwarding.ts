/**
 * What every proxy of this server does with a request it passes on (the aggregator's to
 * extension servers; pods/log, exec, attach, portforward and the pod, node and service proxies
 * to kubelets and pods): which of the client's headers go on, how a protocol switch joins the two
 * connections, how a failure to connect reads (Go's dialer's words, which the reference's
 * messages carry), and how an answer streams back. Streams are piped, so a client that stops
 * reading stops the backend through TCP flow control: the server holds no more than the
 * streams' buffers, however long the answer.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { joinHostPort } from '../net/host-port';

/** Headers that describe one connection, not the request (RFC 9110 §7.6.1), plus those this server consumed. */
export const NOT_FORWARDED: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  'authorization',
]);
const IDENTITY_PREFIXES = ['x-remote-', 'impersonate-'];

/** The client's headers that go on, with the client's address appended to `X-Forwarded-For` as the reference appends it. */
export function forwardedHeaders(
  incoming: IncomingHttpHeaders,
  clientAddress: string | undefined,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || NOT_FORWARDED.has(name) || IDENTITY_PREFIXES.some((prefix) => name.startsWith(prefix)))
      continue;
    headers[name] = value;
  }
  if (clientAddress) {
    const address = clientAddress.replace(/^::ffff:/, '');
    const prior = incoming['x-forwarded-for'];
    headers['x-forwarded-for'] = prior ? `${prior}, ${address}` : address;
  }
  return headers;
}

/** Whether the client asks to switch protocols (`Connection: Upgrade` with an `Upgrade` header). */
export function asksUpgrade(headers: IncomingHttpHeaders): boolean {
  return headers.upgrade !== undefined && /(^|,)\s*upgrade\s*(,|$)/i.test(String(headers.connection ?? ''));
}

/** The backend agreed to switch: its 101 goes to the client as it came, then bytes flow both ways until either side ends. */
export function joinConnections(client: Duplex, answer: IncomingMessage, upstream: Duplex, head: Buffer): void {
  const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}`];
  for (let i = 0; i < answer.rawHeaders.length; i += 2)
    lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
  client.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (head.length > 0) client.write(head);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('close', close).on('error', close);
  upstream.on('close', close).on('error', close);
  upstream.pipe(client);
  client.pipe(upstream);
}

/** A connection failure in the words of Go's dialer, which the reference's messages carry (`dial tcp 10.0.0.1:443: connect: connection refused`). */
export function dialErrorText(
  error: NodeJS.ErrnoException,
  host: string | null | undefined,
  port: number | string | null | undefined,
): string {
  const address = joinHostPort(host ?? '', port ?? '');
  if (error.code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`;
  if (error.code === 'ETIMEDOUT') return `dial tcp ${address}: i/o timeout`;
  if (error.code === 'EHOSTUNREACH') return `dial tcp ${address}: connect: no route to host`;
  if (error.code === 'ENOTFOUND') return `dial tcp: lookup ${host ?? ''}: no such host`;
  if (error.code === 'ENETUNREACH') return `dial tcp ${address}: connect: network is unreachable`;
  return error.message;
}

/**
 * The backend's answer, streamed to the client: its status and headers (less those of the
 * connection and `drop`), sent at once, then the body piped, so that a watch or a followed log
 * reaches the client as it comes and a client that stops reading holds the backend back.
 */
export function streamAnswer(answer: IncomingMessage, res: ServerResponse, options: AnswerHeaders = {}): void {
  res.writeHead(answer.statusCode ?? 502, headersOf(answer, options));
  res.flushHeaders();
  answer.pipe(res);
  answer.on('error', () => res.destroy());
}

/** Which of a backend's headers go back: `drop` left out, `headers` put in. */
export interface AnswerHeaders {
  readonly drop?: ReadonlySet<string>;
  readonly headers?: OutgoingHttpHeaders;
}

function headersOf(answer: IncomingMessage, options: AnswerHeaders): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [header, value] of Object.entries(answer.headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(header) && !options.drop?.has(header)) headers[header] = value;
  }
  return { ...headers, ...options.headers };
}

/**
 * The backend's answer read whole and sent as `rewrite` makes it (with its new length), or,
 * when `rewrite` declines it (undefined), throws, or the answer runs past `limit` bytes,
 * streamed on as it came: the server holds at most `limit` bytes of it.
 */
export async function answerRewritten(
  answer: IncomingMessage,
  res: ServerResponse,
  options: AnswerHeaders,
  rewrite: (body: Buffer) => Buffer | undefined,
  limit: number,
): Promise<void> {
  const chunks: Buffer[] = [];
  const whole = await new Promise<boolean>((resolve, reject) => {
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= limit) return;
      answer.pause();
      answer.off('data', onData).off('end', onEnd).off('error', reject);
      resolve(false);
    };
    const onEnd = () => resolve(true);
    // A backend answer cut short (the client gone, the request aborted) may close without an end
    // or an error: the read ends there rather than waiting, holding what it read, forever.
    answer
      .on('data', onData)
      .once('end', onEnd)
      .once('error', reject)
      .once('close', () => resolve(false));
  });
  const body = Buffer.concat(chunks);
  let rewritten: Buffer | undefined;
  try {
    rewritten = whole ? rewrite(body) : undefined;
  } catch {
    rewritten = undefined;
  }
  if (rewritten === undefined) {
    answer.unshift(body);
    streamAnswer(answer, res, options);
    return;
  }
  const headers = headersOf(answer, options);
  delete headers['content-length'];
  res.writeHead(answer.statusCode ?? 502, { ...headers, 'content-length': rewritten.length });
  res.end(rewritten);
}

/**
 * The first `limit` bytes of a backend's answer as text (an error's body or stream), the rest
 * read and dropped so that the backend is not held up by a reader that stopped.
 */
export async function readAtMost(stream: NodeJS.ReadableStream, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size < limit) chunks.push(chunk.subarray(0, limit - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}
