/**
 * One request to a backend (a kubelet, a pod), answered once its status and headers arrive:
 * the body is left unread for the caller to pipe. A failure to connect, or no headers within
 * the deadline, rejects with Go's http.Client wording (`Get "https://...": dial tcp ...`), which
 * the reference's messages carry. A backend that switches protocols resolves as an upgrade.
 */
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { Duplex, Readable } from 'node:stream';
import { dialErrorText } from './forwarding';
import { joinHostPort } from '../net/host-port';

export interface UpstreamInit {
  /** Address, TLS and agent options (https) or address alone (http). */
  readonly options: RequestOptions;
  readonly secure: boolean;
  readonly method: string;
  /** Path and query, escaped. */
  readonly path: string;
  readonly headers?: OutgoingHttpHeaders;
  /** Bounds connecting and the wait for the answer's headers; 0: none. */
  readonly timeoutMs: number;
  /** Streamed as the request body; absent: none. */
  readonly body?: Readable;
}

export type UpstreamAnswer =
  | { readonly upgraded: false; readonly answer: IncomingMessage }
  | { readonly upgraded: true; readonly answer: IncomingMessage; readonly socket: Duplex; readonly head: Buffer };

export interface Upstream {
  readonly answer: Promise<UpstreamAnswer>;
  /** Ends the request and its connection (the client went away). */
  abort(): void;
}

/** `https://host:port/path` as Go prints a request's URL. */
export function upstreamUrl(init: Pick<UpstreamInit, 'options' | 'secure' | 'path'>): string {
  const hostPort = joinHostPort(String(init.options.host ?? ''), String(init.options.port));
  return `${init.secure ? 'https' : 'http'}://${hostPort}${init.path}`;
}

export function openUpstream(init: UpstreamInit): Upstream {
  const method = init.method.charAt(0) + init.method.slice(1).toLowerCase();
  const describe = (why: string) => `${method} ${JSON.stringify(upstreamUrl(init))}: ${why}`;
  const request = (init.secure ? httpsRequest : httpRequest)({
    ...init.options,
    method: init.method,
    path: init.path,
    headers: init.headers,
  });
  const answer = new Promise<UpstreamAnswer>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    if (init.timeoutMs > 0) {
      timer = setTimeout(() => {
        reject(new Error(describe('context deadline exceeded (Client.Timeout exceeded while awaiting headers)')));
        request.destroy();
      }, init.timeoutMs);
    }
    request.on('response', (message) => {
      clearTimeout(timer);
      resolve({ upgraded: false, answer: message });
    });
    request.on('upgrade', (message, socket, head) => {
      clearTimeout(timer);
      resolve({ upgraded: true, answer: message, socket, head });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new Error(describe(tlsErrorText(error) ?? dialErrorText(error, init.options.host, init.options.port))));
    });
  });
  // Settled or not, an error after the answer (a reset mid-stream) must not go unhandled.
  answer.catch(() => undefined);
  if (init.body) init.body.pipe(request);
  else request.end();
  return { answer, abort: () => request.destroy() };
}

/** Go's x509 wording for the certificate failures a client most often meets. */
function tlsErrorText(error: NodeJS.ErrnoException): string | undefined {
  if (
    error.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
    error.code === 'SELF_SIGNED_CERT_IN_CHAIN' ||
    error.code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    error.code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY'
  ) {
    return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  }
  if (error.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `tls: failed to verify certificate: x509: ${error.message}`;
  return undefined;
}
