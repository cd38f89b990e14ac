/**
 * The bytes of one watch response on their way to the client.
 *
 * Events handed over during one turn of the event loop go out together, in one write (one
 * chunk, one TLS write), when the turn ends: a burst of events costs a watcher one system call,
 * not one per event, and no event waits longer than the turn. One immediate flushes every
 * writer with something gathered, in the order they gathered it.
 *
 * A chunked response's chunk is framed here and handed to the socket in one write:
 * through `res.write` each chunk costs three socket writes (size line, data, CRLF) gathered by
 * a cork and a `writev` on the next tick, a few microseconds a write, which a fan-out to
 * thousands of watchers pays thousands of times per event. Watchers whose batches are the same
 * (the same shared event bytes in the same order) share one framed buffer.
 *
 * The writer holds at most about `maxBufferedBytes` (gathered and not yet taken by the client's
 * connection) plus the event that crossed it: past that it is `full`, and the handler stops
 * reading its watch until the client takes some, so a client that stops reading backs up into
 * its watch's own bounded queue (where the cache closes it), never into server memory.
 *
 * Its listeners ('drain', 'close') are added once per response and removed at its end.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const CRLF = Buffer.from('\r\n');

/**
 * The last batch's bytes, and its parts: in a fan-out every watcher of a turn gathers the same
 * shared event bytes in the same order, so they write one buffer instead of a copy each.
 */
let lastBatch: { readonly parts: readonly Buffer[]; readonly framed: boolean; readonly bytes: Buffer } | undefined;

/** `parts` joined, as one HTTP/1.1 chunk when `framed`. */
function batchBytes(parts: readonly Buffer[], length: number, framed: boolean): Buffer {
  if (parts.length === 1 && !framed) return parts[0];
  const last = lastBatch;
  if (
    last !== undefined &&
    last.framed === framed &&
    last.parts.length === parts.length &&
    last.parts.every((part, index) => part === parts[index])
  )
    return last.bytes;
  const bytes = framed
    ? Buffer.concat([Buffer.from(`${length.toString(16)}\r\n`, 'latin1'), ...parts, CRLF])
    : Buffer.concat(parts, length);
  lastBatch = { parts, framed, bytes };
  return bytes;
}

/** Writers with bytes gathered this turn, flushed by one immediate. */
let due: WatchWriter[] = [];
let dueFlush: NodeJS.Immediate | undefined;

function flushDue(): void {
  dueFlush = undefined;
  const writers = due;
  due = [];
  for (const writer of writers) writer.flush();
}

/** The most connections a write's answer flushes before it goes out (`flushGatheredEventsIfFew`). */
const ANSWER_FLUSH_LIMIT = 64;

/**
 * Writes the events gathered this turn now, when they go to few connections. The answer to a
 * write calls it before it goes out, so that a client watching what it writes (every controller)
 * has the event first: one that acts on the answer while its informer lacks the event meets a
 * conflict. The reference's watchers write while its handler still encodes the answer, which
 * nearly always gives that order. A large fan-out keeps waiting for the turn's end instead: the
 * events of the turn's other writes then share its writes, and the answer is not held behind
 * thousands of socket writes.
 */
export function flushGatheredEventsIfFew(): void {
  if (due.length === 0 || due.length > ANSWER_FLUSH_LIMIT) return;
  clearImmediate(dueFlush);
  flushDue();
}

/** What the watch loop writes to: the chunked HTTP stream's writer, or a WebSocket's (watch-websocket.ts). */
export interface WatchSink {
  /** False once the client has gone away or the sink has ended. */
  readonly open: boolean;
  /** At or past the bound of what waits for the client: wait (`whenRoom`) before handing over more. */
  readonly full: boolean;
  send(bytes: Buffer): void;
  whenRoom(): Promise<void>;
  interrupt(): void;
  end(lingerMs: number): void;
}

/** A sink's waiting: one waiter at a time, woken when there is room again or on `interrupt`. */
export abstract class WaitsForRoom {
  private wake: (() => void) | undefined;
  abstract get open(): boolean;
  abstract get full(): boolean;

  /** Settles when the sink is below its bound again, the client has gone, or `interrupt` is called. */
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
}

export class WatchWriter extends WaitsForRoom implements WatchSink {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private scheduled = false;
  private ended = false;
  /** The connection this writer frames chunks for itself (a chunked response); absent: `res.write` writes the bytes. */
  private readonly socket: Socket | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
  ) {
    super();
    // Decided when the headers went out: the watch handler asks for chunks but of an HTTP/1.0 client.
    this.socket = res.headersSent && res.chunkedEncoding ? (res.socket ?? undefined) : undefined;
    (this.socket ?? res).on('drain', this.onRoom);
    res.on('close', this.interrupt);
  }

  /** False once the client has gone away. */
  get open(): boolean {
    return !this.res.destroyed && !this.ended;
  }

  /** At or past the byte bound: wait (`whenRoom`) before handing over more. */
  get full(): boolean {
    // With the socket written directly the response holds nothing of its own, and asking the
    // socket skips the response's getters, once per event and watcher in a fan-out.
    return this.pendingBytes + (this.socket ?? this.res).writableLength >= this.maxBufferedBytes;
  }

  send(bytes: Buffer): void {
    if (!this.open) return;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.scheduled) return;
    this.scheduled = true;
    due.push(this);
    dueFlush ??= setImmediate(flushDue);
  }

  /**
   * Writes what is gathered and ends the response (the stream just ends, the client resumes
   * from the last resource version it saw). A client that does not take the rest within
   * `lingerMs` is disconnected, so its unread bytes are released.
   */
  end(lingerMs: number): void {
    if (this.ended) return;
    this.flush();
    this.ended = true;
    (this.socket ?? this.res).off('drain', this.onRoom);
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

  /** Writes what is gathered: when the turn ends (`flushDue`), or at the end. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const socket = this.socket;
    const bytes = batchBytes(this.pending, this.pendingBytes, socket !== undefined);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.open) {
      if (socket !== undefined) socket.write(bytes);
      else this.res.write(bytes);
    }
    this.onRoom();
  }

  private readonly onRoom = (): void => {
    if (!this.full) this.interrupt();
  };
}
