/**
 * The client side of a SPDY/3.1 session on a connection the kubelet switched to `SPDY/3.1`, as
 * much of the protocol as the kubelet's exec and attach streams use: streams opened with
 * SYN_STREAM and their headers, DATA both ways with FIN as a half-close, RST_STREAM, PING
 * answered, GOAWAY, SETTINGS and WINDOW_UPDATE read.
 *
 * Hand-written because no SPDY/3.1 client library is installed here (npm's `spdy-transport` is a
 * dependency of the `spdy` HTTP server, not installed, and would need the lead to add it), and
 * the subset needed is small.
 *
 * Facts of the peer this is built for (the kubelet's streams are moby/spdystream's):
 * - Flow control: spdystream neither sends WINDOW_UPDATE nor holds to a window, so neither does
 *   this client; both sides rely on TCP instead. A stream whose reader falls behind pauses the
 *   whole connection until it is read (spdystream does the same when its frame queue fills).
 * - Header blocks: sent as one zlib stream across the session, primed with the SPDY/3 dictionary,
 *   as the protocol requires; this client writes them as stored (uncompressed) deflate blocks,
 *   which need only the dictionary's Adler-32 for the zlib header. The blocks the kubelet sends
 *   (its SYN_REPLYs) carry nothing a client of exec or attach reads, so they are not inflated.
 */
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';

const VERSION = 3;
const CONTROL_BIT = 0x80;
const FRAME_HEADER_BYTES = 8;
/** Data written is cut into frames this long, so that one large write does not hold the connection. */
const DATA_FRAME_BYTES = 32 * 1024;

const FLAG_FIN = 0x01;

const enum FrameType {
  SynStream = 1,
  SynReply = 2,
  RstStream = 3,
  Settings = 4,
  Ping = 6,
  GoAway = 7,
  Headers = 8,
  WindowUpdate = 9,
}

/** RST_STREAM status codes (SPDY/3 §2.6.3). */
export const RstStatus = { protocolError: 1, invalidStream: 2, refusedStream: 3, cancel: 5 } as const;

/** Adler-32 of the SPDY/3 header dictionary (§2.6.10.1): the zlib header's DICTID. */
const DICTIONARY_ADLER32 = 0xe3c6a7c2;
/** zlib's CMF (deflate, 32 KiB window) and FLG (FDICT set, check bits making CMF·256+FLG a multiple of 31). */
const ZLIB_HEADER = [0x78, 0x20];
const STORED_BLOCK_MAX = 0xffff;
/** An empty non-final stored block: what a zlib sync flush writes last. */
const SYNC_FLUSH_BLOCK = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

/**
 * One direction's header compression: a zlib stream across the whole session (its header and
 * DICTID in the first block only), each header block a run of non-final stored deflate blocks
 * ended by an empty one, as zlib's sync flush ends its output. The empty block matters: Go's
 * inflater, having copied a stored block to its end, reads the next block's header before it
 * hands the bytes over, and the frame must hold that header.
 */
class HeaderCompressor {
  private started = false;

  compress(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      const header = Buffer.alloc(6);
      header.set(ZLIB_HEADER, 0);
      header.writeUInt32BE(DICTIONARY_ADLER32, 2);
      parts.push(header);
      this.started = true;
    }
    for (let at = 0; at < block.length; at += STORED_BLOCK_MAX) {
      const piece = block.subarray(at, at + STORED_BLOCK_MAX);
      const stored = Buffer.alloc(5);
      stored[0] = 0; // BFINAL 0, BTYPE 00: stored
      stored.writeUInt16LE(piece.length, 1);
      stored.writeUInt16LE(~piece.length & 0xffff, 3);
      parts.push(stored, piece);
    }
    parts.push(SYNC_FLUSH_BLOCK);
    return Buffer.concat(parts);
  }
}

/** A header block (SPDY/3 §2.6.10): pair count, then each name (lower case) and value with 32-bit lengths. */
function headerBlock(headers: Readonly<Record<string, string>>): Buffer {
  const entries = Object.entries(headers);
  const parts: Buffer[] = [Buffer.alloc(4)];
  parts[0].writeUInt32BE(entries.length);
  for (const [name, value] of entries) {
    for (const text of [name.toLowerCase(), value]) {
      const bytes = Buffer.from(text, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      parts.push(length, bytes);
    }
  }
  return Buffer.concat(parts);
}

function controlFrame(type: FrameType, flags: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header[0] = CONTROL_BIT;
  header[1] = VERSION;
  header.writeUInt16BE(type, 2);
  header[4] = flags;
  header.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([header, payload]);
}

function dataFrame(streamId: number, flags: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUInt32BE(streamId & 0x7fffffff, 0);
  header[4] = flags;
  header.writeUIntBE(payload.length, 5, 3);
  return payload.length === 0 ? header : Buffer.concat([header, payload]);
}

function words(...values: number[]): Buffer {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => buffer.writeUInt32BE(value >>> 0, index * 4));
  return buffer;
}

/**
 * One stream of the session: what the peer sends is read from it (ending at the peer's FIN or
 * the connection's end), what is written goes as DATA frames, and `end()` half-closes it (FIN).
 */
export class SpdyStream extends Duplex {
  /** Whether the peer has answered the stream (SYN_REPLY). */
  replied = false;
  /** Whether the peer reset the stream (RST_STREAM): nothing more goes to it. */
  resetByPeer = false;
  private remoteEnded = false;
  private localEnded = false;

  constructor(
    readonly id: number,
    private readonly session: SpdySession,
  ) {
    super({ allowHalfOpen: true });
  }

  override _read(): void {
    this.session.streamWantsData(this);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // What is written to a stream the peer has reset is dropped, as spdystream drops it.
    if (this.resetByPeer) callback();
    else this.session.writeData(this.id, chunk, false, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.localEnded = true;
    if (this.resetByPeer) callback();
    else this.session.writeData(this.id, Buffer.alloc(0), true, callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A stream given up before both sides ended is reset, so that the peer stops using it.
    if (!(this.remoteEnded && this.localEnded) && !this.resetByPeer) this.session.reset(this.id, RstStatus.cancel);
    this.session.forget(this);
    callback(error);
  }

  /** The peer's data or FIN; false when the stream's buffer is full. */
  receive(data: Buffer | null): boolean {
    if (this.remoteEnded) return true;
    if (data === null) {
      this.remoteEnded = true;
      this.push(null);
      return true;
    }
    return this.push(data);
  }
}

/** The session: its streams, and the frames read from and written to the connection. */
export class SpdySession extends EventEmitter {
  private readonly streams = new Map<number, SpdyStream>();
  /** Streams whose reader has not caught up: while any is, the connection is not read. */
  private readonly full = new Set<SpdyStream>();
  private readonly compressor = new HeaderCompressor();
  private nextStreamId = 1;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private closed = false;
  private goneAway = false;

  /** `head`: what came after the 101's headers, the session's first bytes. */
  constructor(
    private readonly socket: Duplex,
    head: Buffer = Buffer.alloc(0),
  ) {
    super();
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error: Error) => this.terminate(error));
    socket.on('close', () => this.terminate());
    socket.on('end', () => this.terminate());
    if (head.length > 0) this.onData(head);
  }

  /** Opens a stream with these headers (SYN_STREAM). */
  openStream(headers: Readonly<Record<string, string>>): SpdyStream {
    if (this.closed || this.goneAway) throw new Error('the SPDY session is closed');
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const stream = new SpdyStream(id, this);
    this.streams.set(id, stream);
    // Stream ID, no associated stream, priority 0 and slot 0, then the compressed headers.
    const payload = Buffer.concat([words(id, 0), Buffer.alloc(2), this.compressor.compress(headerBlock(headers))]);
    this.socket.write(controlFrame(FrameType.SynStream, 0, payload));
    return stream;
  }

  /** Ends the session: GOAWAY, then the connection closed; its streams end. */
  close(): void {
    if (this.closed) return;
    if (this.socket.writable) this.socket.write(controlFrame(FrameType.GoAway, 0, words(0, 0)));
    this.socket.end();
    this.terminate();
  }

  /** @internal DATA frames for a stream, `callback` once the connection takes them. */
  writeData(streamId: number, data: Buffer, fin: boolean, callback: (error?: Error | null) => void): void {
    if (this.closed || !this.socket.writable) {
      callback(new Error('the SPDY session is closed'));
      return;
    }
    const frames = data.length === 0 ? [dataFrame(streamId, fin ? FLAG_FIN : 0, data)] : [];
    for (let at = 0; at < data.length; at += DATA_FRAME_BYTES) {
      const end = Math.min(at + DATA_FRAME_BYTES, data.length);
      frames.push(dataFrame(streamId, fin && end === data.length ? FLAG_FIN : 0, data.subarray(at, end)));
    }
    let accepted = true;
    for (const frame of frames) accepted = this.socket.write(frame);
    if (accepted) {
      callback();
      return;
    }
    const taken = () => {
      this.socket.off('drain', taken).off('close', taken);
      callback();
    };
    this.socket.on('drain', taken).on('close', taken);
  }

  /** @internal */
  reset(streamId: number, status: number): void {
    if (!this.closed && this.socket.writable)
      this.socket.write(controlFrame(FrameType.RstStream, 0, words(streamId, status)));
  }

  /** @internal */
  forget(stream: SpdyStream): void {
    this.streams.delete(stream.id);
    this.streamWantsData(stream);
  }

  /** @internal A stream's reader asks for more: the connection is read again once no stream is full. */
  streamWantsData(stream: SpdyStream): void {
    if (!this.full.delete(stream) || this.full.size > 0 || this.closed) return;
    this.socket.resume();
  }

  /** Frames are cut from what arrives; one frame's length is at most 2^24-1 bytes (its 24-bit field), which bounds what is held. */
  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.closed && this.buffered >= FRAME_HEADER_BYTES) {
      const header = this.peek(FRAME_HEADER_BYTES);
      const length = header.readUIntBE(5, 3);
      if (this.buffered < FRAME_HEADER_BYTES + length) return;
      const frame = this.take(FRAME_HEADER_BYTES + length);
      this.onFrame(frame);
    }
  }

  private peek(size: number): Buffer {
    if (this.chunks[0].length < size) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0].subarray(0, size);
  }

  private take(size: number): Buffer {
    const first = this.peek(size);
    const rest = this.chunks[0].subarray(size);
    if (rest.length > 0) this.chunks[0] = rest;
    else this.chunks.shift();
    this.buffered -= size;
    return first;
  }

  private onFrame(frame: Buffer): void {
    const flags = frame[4];
    const payload = frame.subarray(FRAME_HEADER_BYTES);
    if ((frame[0] & CONTROL_BIT) === 0) {
      this.onDataFrame(frame.readUInt32BE(0) & 0x7fffffff, flags, payload);
      return;
    }
    const version = frame.readUInt16BE(0) & 0x7fff;
    if (version !== VERSION) {
      this.terminate(new Error(`SPDY: unsupported version ${version}`));
      return;
    }
    const type = frame.readUInt16BE(2);
    const streamId = () => payload.readUInt32BE(0) & 0x7fffffff;
    if (payload.length < 4 && type !== FrameType.Settings) {
      this.terminate(new Error(`SPDY: control frame ${type} too short`));
      return;
    }
    switch (type) {
      case FrameType.SynStream:
        // The kubelet opens no streams of its own toward a client.
        this.reset(streamId(), RstStatus.refusedStream);
        break;
      case FrameType.SynReply: {
        const stream = this.streams.get(streamId());
        if (stream === undefined) break;
        stream.replied = true;
        if ((flags & FLAG_FIN) !== 0) stream.receive(null);
        break;
      }
      case FrameType.RstStream: {
        // As spdystream reads a reset: the stream's remote side ends, what it sent before stays readable.
        const stream = this.streams.get(streamId());
        if (stream === undefined) break;
        stream.receive(null);
        stream.resetByPeer = true;
        break;
      }
      case FrameType.Ping: {
        // Our own pings would be odd; the peer's even ones are answered with the same ID.
        if ((payload.readUInt32BE(0) & 1) === 0)
          this.socket.write(controlFrame(FrameType.Ping, 0, payload.subarray(0, 4)));
        break;
      }
      case FrameType.GoAway:
        this.goneAway = true;
        break;
      case FrameType.Headers: {
        const stream = this.streams.get(streamId());
        if (stream !== undefined && (flags & FLAG_FIN) !== 0) stream.receive(null);
        break;
      }
      case FrameType.Settings:
      case FrameType.WindowUpdate:
        // No window is held to (see the module's comment); the peer's settings change nothing here.
        break;
      default:
        // Unknown control frames are ignored (SPDY/3 §2.2.1).
        break;
    }
  }

  private onDataFrame(streamId: number, flags: number, payload: Buffer): void {
    const stream = this.streams.get(streamId);
    if (stream === undefined) {
      this.reset(streamId, RstStatus.invalidStream);
      return;
    }
    if (payload.length > 0 && !stream.receive(payload)) {
      this.full.add(stream);
      this.socket.pause();
    }
    if ((flags & FLAG_FIN) !== 0) stream.receive(null);
  }

  /**
   * The connection is gone (or broken): every stream's remote side ends, as spdystream ends its
   * streams' reads when its connection closes; an error is reported once.
   */
  private terminate(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.full.clear();
    for (const stream of this.streams.values()) stream.receive(null);
    if (!this.socket.destroyed) this.socket.destroy();
    if (error !== undefined) this.emit('error', error);
    this.emit('close');
  }
}
