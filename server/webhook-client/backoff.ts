/**
 * The reference's retry schedule for webhooks it calls (client-go's default webhook backoff):
 * after a failure that may pass, wait the initial delay, then half as long again each time, up
 * to ±20 % longer at random, five attempts in all.
 */
import { postJson, type PostDestination, type PostOptions, type WebhookAnswer } from './post-json';

const FACTOR = 1.5;
const JITTER = 0.2;
const ATTEMPTS = 5;
/** The initial delay of the token and authorization webhooks' retries (the reference's DefaultAuthWebhookRetryBackoff). */
export const AUTH_WEBHOOK_INITIAL_DELAY_MS = 500;

/** `call` until it succeeds, five attempts at most; a failure `retry` rejects ends at once. */
export async function withBackoff<T>(
  initialDelayMs: number,
  call: () => Promise<T>,
  retry: (error: unknown) => boolean,
): Promise<T> {
  let delayMs = initialDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= ATTEMPTS || !retry(error)) throw error;
    }
    const jittered = delayMs * (1 + JITTER * Math.random());
    await new Promise((resolve) => setTimeout(resolve, jittered).unref());
    delayMs *= FACTOR;
  }
}

/** A webhook call that failed; `transient` when the reference's DefaultShouldRetry calls again. */
export class WebhookFailure extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/** The answers DefaultShouldRetry takes for passing: 429, and 500 and 504 (read as InternalError and Timeout). */
const TRANSIENT_STATUSES = new Set([429, 500, 504]);

/**
 * One POST whose failure says whether it may pass: no answer, or an answer not 2xx (worded by
 * `statusMessage`), is a WebhookFailure; a 2xx answer is the caller's to read.
 */
export async function postOnce(
  destination: PostDestination,
  body: string | Buffer,
  options: PostOptions,
  statusMessage: (status: number) => string,
): Promise<WebhookAnswer> {
  let answer: WebhookAnswer;
  try {
    answer = await postJson(destination, body, options);
  } catch (error) {
    // DefaultShouldRetry calls again over a connection the webhook reset (Node's `read
    // ECONNRESET`), not one refused, closed without an answer or timed out.
    const message = (error as Error).message;
    throw new WebhookFailure(message, message.includes('ECONNRESET'));
  }
  if (answer.status < 200 || answer.status >= 300)
    throw new WebhookFailure(statusMessage(answer.status), TRANSIENT_STATUSES.has(answer.status));
  return answer;
}

/** `withBackoff` that calls again after exactly the transient WebhookFailures, while `stillWanted()` says so. */
export function retryTransient<T>(
  initialDelayMs: number,
  call: () => Promise<T>,
  stillWanted: () => boolean = () => true,
): Promise<T> {
  return withBackoff(
    initialDelayMs,
    call,
    (error) => error instanceof WebhookFailure && error.transient && stillWanted(),
  );
}
