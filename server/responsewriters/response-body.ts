/**
 * The body of a get or list response, written chunk by chunk with backpressure, gzip-compressed
 * as the reference does: only when the client accepts gzip, the `APIResponseCompression` gate
 * is on, and the body reaches 128 KiB (smaller bodies go out whole, with a Content-Length).
 * Watches never come here: their events must not wait in a compressor.
 */
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { constants, createGzip, type Gzip } from 'node:zlib';

/** The reference's `defaultGzipThresholdBytes`. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

export function acceptsGzip(acceptEncoding: string | string[] | undefined): boolean {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '');
  return header
    .split(',')
    .map((part) => part.trim().split(';'))
    .some(
      ([coding, ...parameters]) =>
        coding.trim().toLowerCase() === 'gzip' && !parameters.some((parameter) => /^\s*q=0(\.0*)?\s*$/.test(parameter)),
    );
}

export class ResponseBody {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private gzip: Gzip | undefined;
  private started = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: { code: number; contentType: string; compress: boolean },
  ) {}

  /** Adds a chunk; resolves when the socket can take more. */
  async write(chunk: Buffer | string): Promise<void> {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (!this.started) {
      this.held.push(bytes);
      this.heldBytes += bytes.length;
      if (this.heldBytes < GZIP_THRESHOLD_BYTES) return;
      this.start();
      const held = this.held;
      this.held = [];
      for (const piece of held) await this.send(piece);
      return;
    }
    await this.send(bytes);
  }

  /** Ends the response; a body that stayed under the threshold goes out whole. */
  async end(): Promise<void> {
    if (!this.started) {
      const body = Buffer.concat(this.held, this.heldBytes);
      this.res.statusCode = this.options.code;
      this.res.setHeader('Content-Type', this.options.contentType);
      this.res.setHeader('Content-Length', body.length);
      this.res.end(body);
      return;
    }
    if (this.gzip !== undefined) {
      const finished = firstOf(this.res, 'finish', this.res, 'close');
      this.gzip.end();
      await finished;
      return;
    }
    this.res.end();
  }

  private start(): void {
    this.started = true;
    this.res.statusCode = this.options.code;
    this.res.setHeader('Content-Type', this.options.contentType);
    if (this.options.compress) {
      this.res.setHeader('Content-Encoding', 'gzip');
      // Level 1, as the reference: large lists are CPU-bound, and speed beats ratio here.
      this.gzip = createGzip({ level: constants.Z_BEST_SPEED });
      this.gzip.pipe(this.res);
    }
  }

  private async send(bytes: Buffer): Promise<void> {
    if (this.res.destroyed) throw new Error('client went away');
    const target = this.gzip ?? this.res;
    if (!target.write(bytes)) await firstOf(target, 'drain', this.res, 'close');
  }
}

/**
 * Settles at whichever of two events comes first, removing both listeners: a body of many
 * back-pressured chunks must not leave one listener behind per chunk.
 */
function firstOf(one: Writable, oneEvent: string, other: Writable, otherEvent: string): Promise<void> {
  return new Promise((resolve) => {
    const settle = (): void => {
      one.off(oneEvent, settle);
      other.off(otherEvent, settle);
      resolve();
    };
    one.on(oneEvent, settle);
    other.on(otherEvent, settle);
  });
}
