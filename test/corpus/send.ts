/**
 * Sends one corpus request over HTTPS as the admin (client certificate) and reads what came
 * back, with a deadline: a request the server neither answers nor ends counts as a hang.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { connect } from 'node:tls';
import { parse as parseYaml } from 'yaml';
import type { CorpusRequest } from './cases';
import { decodeObject } from '../../server/codec/protobuf-envelope';
import { PROTOBUF_MEDIA_TYPE, YAML_MEDIA_TYPE } from '../../server/codec/media-type';

export interface Credentials {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface Answer {
  /** The HTTP status; 0 when the connection failed or the deadline passed (`error` says which). */
  readonly code: number;
  /** The `reason` of a Status body, '' when the body is not a Status or has none. */
  readonly reason: string;
  /** The body is a `Status` with kind, status, code and reason members. */
  readonly isStatus: boolean;
  readonly body: string;
  readonly error?: string;
  /** A raw request's answer: its status line and headers as they came. */
  readonly head?: string;
}

export interface Sender {
  send(request: CorpusRequest): Promise<Answer>;
  close(): void;
}

const DEFAULT_DEADLINE_MS = 10_000;

export function sender(baseUrl: string, credentials: Credentials, deadlineMs = DEFAULT_DEADLINE_MS): Sender {
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 1,
    ca: credentials.ca,
    cert: credentials.cert,
    key: credentials.key,
  });
  const sendOnce = (request: CorpusRequest): Promise<Answer> => {
    if (request.rawHead !== undefined)
      return sendRaw(baseUrl, credentials, { head: request.rawHead, body: request.body, deadlineMs });
    return new Promise((resolve) => {
      const headers: Record<string, string> = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
      const req = httpsRequest(new URL(request.path, baseUrl), { method: request.method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          const bytes = Buffer.concat(chunks);
          const body = bytes.toString('utf8');
          resolve({ code: res.statusCode ?? 0, ...statusOf(decodedBody(bytes, res.headers['content-type'])), body });
        });
        res.on('error', (error) => finish(`response: ${error.message}`));
      });
      const finish = (error: string) => {
        clearTimeout(timer);
        req.destroy();
        resolve({ code: 0, reason: '', isStatus: false, body: '', error });
      };
      const timer = setTimeout(() => finish('no answer in time'), deadlineMs);
      req.on('error', (error) => finish(error.message));
      req.end(request.body);
    });
  };
  return {
    async send(request) {
      if (request.awaitServed !== undefined) await untilServed(sendOnce, request.awaitServed);
      return sendOnce(request);
    },
    close: () => agent.destroy(),
  };
}

/** How long a collection a fixture made (a CRD's) may take to be served. */
const SERVED_DEADLINE_MS = 60_000;

/** Polls the collection until it answers 200: a CRD's kind is served only once it is established. */
async function untilServed(send: (request: CorpusRequest) => Promise<Answer>, path: string): Promise<void> {
  const deadline = Date.now() + SERVED_DEADLINE_MS;
  while ((await send({ method: 'GET', path, headers: {} })).code !== 200) {
    if (Date.now() > deadline) throw new Error(`${path} was not served within ${SERVED_DEADLINE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The body as a value: a Status comes in the type the request accepted (JSON, YAML or protobuf). */
function decodedBody(bytes: Buffer, contentType: string | undefined): unknown {
  try {
    if (contentType?.startsWith(PROTOBUF_MEDIA_TYPE)) return decodeObject(bytes);
    if (contentType?.startsWith(YAML_MEDIA_TYPE)) return parseYaml(bytes.toString('utf8'));
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

function statusOf(body: unknown): { reason: string; isStatus: boolean } {
  if (typeof body !== 'object' || body === null) return { reason: '', isStatus: false };
  const parsed = body as Record<string, unknown>;
  const isStatus =
    parsed.kind === 'Status' &&
    typeof parsed.status === 'string' &&
    typeof parsed.code === 'number' &&
    typeof parsed.reason === 'string';
  return { reason: typeof parsed.reason === 'string' ? parsed.reason : '', isStatus };
}

/**
 * Writes a request exactly as given on a TLS connection of its own and reads the answer until
 * the server closes it (the head asks for that): the status code from the status line, the
 * body after the head, de-chunked when it came chunked.
 */
function sendRaw(
  baseUrl: string,
  credentials: Credentials,
  request: { head: string; body?: string; deadlineMs: number },
): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(
      { host: url.hostname, port: Number(url.port), ca: credentials.ca, cert: credentials.cert, key: credentials.key },
      () => {
        socket.write(request.head + (request.body ?? ''));
      },
    );
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(
      () => finish({ code: 0, reason: '', isStatus: false, body: '', error: 'no answer in time' }),
      request.deadlineMs,
    );
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => finish({ code: 0, reason: '', isStatus: false, body: '', error: error.message }));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      if (status === null)
        return finish({
          code: 0,
          reason: '',
          isStatus: false,
          body: '',
          error: `no status line in ${JSON.stringify(text.slice(0, 100))}`,
        });
      const headEnd = text.indexOf('\r\n\r\n');
      const head = headEnd < 0 ? text : text.slice(0, headEnd);
      let body = headEnd < 0 ? '' : text.slice(headEnd + 4);
      if (/\r\ntransfer-encoding: *chunked/i.test(head)) body = dechunked(body);
      finish({ code: Number(status[1]), ...statusOf(decodedBody(Buffer.from(body), undefined)), body, head });
    });
  });
}

function dechunked(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = lineEnd < 0 ? 0 : parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
