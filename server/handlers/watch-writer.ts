/**
 * The bytes of one watch response on their way to the client.
 *
 * Events handed over during one turn of the event loop go out together, in one write (one
 * chunk, one TLS write), when the turn ends: a burst of events costs a watcher one system call,
 * not one per event, and no event waits longer than the turn.
 *
 * The writer holds at most about `maxBufferedBytes` (gathered and not yet taken by the client's
 * connection) plus the event that crossed it: past that it is `full`, and the handler stops
 * reading its watch until the client takes some, so a client that stops reading backs up into
 * its watch's own bounded queue (where the cache closes it), never into server memory.
 *
 * Its listeners ('drain', 'close') are added once per response and removed at its end.
 */
import type { ServerResponse } from 'node:http';

/**
 * The last batch joined, and its parts: in a fan-out every watcher of a turn gathers the same
 * shared event bytes in the same order, so they write one joined buffer instead of a copy each.
 */
let lastJoined: { readonly parts: readonly Buffer[]; readonly bytes: Buffer } | undefined;

function joined(parts: readonly Buffer[], length: number): Buffer {
  if (parts.length === 1) return parts[0];
  const last = lastJoined;
  if (last !== undefined && last.parts.length === parts.length && last.parts.every((part, index) => part === parts[index])) return last.bytes;
  const bytes = Buffer.concat(parts, length);
  lastJoined = { parts, bytes };
  return bytes;
}

export class WatchWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private scheduled: NodeJS.Immediate | undefined;
  private wake: (() => void) | undefined;
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
  ) {
    res.on('drain', this.onRoom);
    res.on('close', this.interrupt);
  }

  /** False once the client has gone away. */
  get open(): boolean {
    return !this.res.destroyed && !this.ended;
  }

  /** At or past the byte bound: wait (`whenRoom`) before handing over more. */
  get full(): boolean {
    return this.pendingBytes + this.res.writableLength >= this.maxBufferedBytes;
  }

  send(bytes: Buffer): void {
    if (!this.open) return;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    this.scheduled ??= setImmediate(this.flush);
  }

  /** Settles when the writer is below its bound again, the client has gone, or `interrupt` is called. */
  whenRoom(): Promise<void> {
    if (!this.full || !this.open) return Promise.resolve();
    return new Promise((resolve) => (this.wake = resolve));
  }

  /** Wakes a `whenRoom` waiter whatever the bound says (its watch ended, or the client went away). */
  readonly interrupt = (): void => {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  };

  /**
   * Writes what is gathered and ends the response (the stream just ends, the client resumes
   * from the last resource version it saw). A client that does not take the rest within
   * `lingerMs` is disconnected, so its unread bytes are released.
   */
  end(lingerMs: number): void {
    if (this.ended) return;
    clearImmediate(this.scheduled);
    this.flush();
    this.ended = true;
    this.res.off('drain', this.onRoom);
    this.res.off('close', this.interrupt);
    this.interrupt();
    if (this.res.destroyed) return;
    if (!this.res.writableEnded) this.res.end();
    if (this.res.writableFinished) return;
    const res = this.res;
    const linger = setTimeout(() => res.destroy(), lingerMs);
    linger.unref();
    const finished = (): void => {
      clearTimeout(linger);
      res.off('finish', finished);
      res.off('close', finished);
    };
    res.on('finish', finished);
    res.on('close', finished);
  }

  private readonly flush = (): void => {
    this.scheduled = undefined;
    if (this.pending.length === 0) return;
    const chunk = joined(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.open) this.res.write(chunk);
    this.onRoom();
  };

  private readonly onRoom = (): void => {
    if (!this.full) this.interrupt();
  };
}
