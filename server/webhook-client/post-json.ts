/**
 * One JSON POST to a webhook, the one way this server calls out to a webhook of any kind
 * (token review, authorization, audit, admission, CRD conversion): the destination's CA,
 * client certificate or bearer token, a deadline for the whole call, and an answer read up to
 * a bound, so a webhook cannot make this server wait or buffer without end (past either, the
 * request is destroyed and the call fails). Failures read as Go's HTTP client words them,
 * `Post "<url>": <cause>`, which the reference puts in its own messages. An answer of 429 or
 * 5xx with a `Retry-After` of whole seconds is asked again after that wait, up to ten times
 * within the call's deadline, as client-go's requests do by themselves. The caller judges the
 * status and the body.
 */
import { request as httpsRequest } from 'node:https';
import { setTimeout as wait } from 'node:timers/promises';
import { dialErrorText } from '../proxy/forwarding';

/** The default bound on an answer; admission and conversion reviews allow more. */
const DEFAULT_MAX_ANSWER_BYTES = 1 << 20;
/** client-go's retries of an answer that names its own wait. */
const MAX_RETRIES = 10;

/** Where a POST goes and how the connection is trusted. */
export interface PostDestination {
  readonly url: URL;
  /** PEM of the CAs the server's certificate must chain to; the system's when absent. */
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly insecureSkipTLSVerify?: boolean;
  /** The name the serving certificate must carry when it differs from the URL's host (a Service reached at its endpoint). */
  readonly serverName?: string;
}

export interface PostOptions {
  /** The whole call, not only an idle socket, ends by then. */
  readonly timeoutMs: number;
  readonly maxAnswerBytes?: number;
  /** Ends the call early (the audit backend's shutdown). */
  readonly signal?: AbortSignal;
}

export interface WebhookAnswer {
  readonly status: number;
  readonly body: Buffer;
}

export async function postJson(
  destination: PostDestination,
  body: string | Buffer,
  options: PostOptions,
): Promise<WebhookAnswer> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const deadline = Date.now() + options.timeoutMs;
  for (let retries = 0; ; retries++) {
    const { answer, retryAfterSeconds } = await postAttempt(destination, bytes, deadline - Date.now(), options);
    if (retryAfterSeconds === undefined || retries === MAX_RETRIES) return answer;
    const waitMs = retryAfterSeconds * 1000;
    // The wait's end is past the deadline: the call cannot succeed in time.
    if (Date.now() + waitMs >= deadline) {
      await sleep(deadline - Date.now(), options.signal);
      throw new Error(`Post "${destination.url.href}": context deadline exceeded`);
    }
    await sleep(waitMs, options.signal);
  }
}

/** The seconds an answer asks to wait before it is asked again (client-go's checkWait). */
function retryAfterSeconds(status: number, header: string | undefined): number | undefined {
  // Go's Atoi: decimal digits with an optional sign; a negative wait is none.
  if ((status !== 429 && status < 500) || header === undefined || !/^[+-]?\d{1,18}$/.test(header)) return undefined;
  return Math.max(0, Number(header));
}

/** Waits `ms`, or less if the call is aborted: its next attempt then fails at once. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return wait(Math.max(0, ms), undefined, { signal }).catch(() => undefined);
}

function postAttempt(
  destination: PostDestination,
  bytes: Buffer,
  timeoutMs: number,
  options: PostOptions,
): Promise<{ answer: WebhookAnswer; retryAfterSeconds?: number }> {
  const maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  const failed = (cause: string) => new Error(`Post "${destination.url.href}": ${cause}`);
  return new Promise((resolve, reject) => {
    // A connection that failed reads as Go's dialer words it; other failures as they come.
    const host = destination.url.hostname.replace(/^\[|\]$/g, '');
    const fail = (error: NodeJS.ErrnoException) =>
      reject(failed(dialErrorText(error, host, destination.url.port || '443')));
    // The first failure settles the call; destroying the request then adds its own errors.
    const abandon = (cause: string) => {
      reject(failed(cause));
      req.destroy();
    };
    const req = httpsRequest(
      destination.url,
      {
        method: 'POST',
        ca: destination.ca,
        // Go, whose clients the reference's are, trusts every certificate of the CA pool as an
        // anchor, a CA's or not; OpenSSL by default only self-signed ones. envtest puts the
        // webhook's own serving certificate in its caBundle, which only this makes trusted.
        allowPartialTrustChain: destination.ca !== undefined,
        cert: destination.cert,
        key: destination.key,
        // Node checks the certificate against `servername` when it is given.
        servername: destination.serverName,
        rejectUnauthorized: !destination.insecureSkipTLSVerify,
        signal: options.signal,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'Content-Length': String(bytes.length),
          ...(destination.token ? { Authorization: `Bearer ${destination.token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxAnswerBytes) abandon(`the answer is larger than ${maxAnswerBytes} bytes`);
          else chunks.push(chunk);
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve({
            answer: { status, body: Buffer.concat(chunks) },
            retryAfterSeconds: retryAfterSeconds(status, res.headers['retry-after']),
          });
        });
        res.on('error', fail);
      },
    );
    const deadline = setTimeout(() => abandon('context deadline exceeded'), Math.max(0, timeoutMs));
    req.on('close', () => clearTimeout(deadline));
    req.on('error', fail);
    req.end(bytes);
  });
}
