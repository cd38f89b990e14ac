/**
 * Reading a request body, for the handlers that take one: there is no global body parser, so
 * that reads and watches never pay for it. The limit is the reference's MaxRequestBodyBytes
 * (3 MiB, a server setting no flag changes); a larger body is a 413.
 */
import type { IncomingMessage } from 'node:http';
import { requestEntityTooLarge } from '../status/catalogue';

export const DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export interface ReadBodyOptions {
  readonly limitBytes?: number;
}

export function readBody(request: IncomingMessage, options: ReadBodyOptions = {}): Promise<Buffer> {
  const limit = options.limitBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  // Ended before anyone read it: a request without a body (the server's optimizeEmptyRequests),
  // which emits no 'end' to wait for.
  if (request.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const tooLarge = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      // Discard the rest instead of destroying the socket, so the 413 can still be sent.
      request.resume();
      reject(requestEntityTooLarge(limit));
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) tooLarge();
      else chunks.push(chunk);
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
    if (Number(request.headers['content-length']) > limit) {
      tooLarge();
      return;
    }
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
  });
}
