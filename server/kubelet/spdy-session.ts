/**
 * A SPDY/3.1 session on a connection switched to `SPDY/3.1`, as much of the protocol as the
 * kubelet's exec, attach and port-forward streams use: streams opened with SYN_STREAM and their
 * headers, DATA both ways with FIN as a half-close, RST_STREAM, PING answered, GOAWAY, SETTINGS
 * and WINDOW_UPDATE read. The server plays the client's side toward kubelets; given a handler of
 * the peer's streams, a session plays the kubelet's side instead (a kubelet stand-in of the test
 * cluster does), accepting the streams its client opens (SYN_REPLY) or refusing them.
 *
 * Hand-written because no SPDY/3.1 client library is installed here (npm's `spdy-transport` is a
 * dependency of the `spdy` HTTP server, not installed, and would need the lead to add it), and
 * the subset needed is small.
 *
 * Facts of the peer this is built for (the kubelet's streams are moby/spdystream's):
 * - Flow control: spdystream neither sends WINDOW_UPDATE nor holds to a window, so neither does
 *   this client; both sides rely on TCP instead. A stream whose reader falls behind pauses the
 *   whole connection until it is read (spdystream does the same when its frame queue fills).
 * - Header blocks (spdy-header-block.ts): the blocks the kubelet sends (its SYN_REPLYs) carry
 *   nothing a client of its streams reads, so a client's session does not inflate them; a
 *   session that accepts streams inflates its peer's SYN_STREAMs' blocks, whose headers say what
 *   each stream is for.
 */
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';
import { HeaderCompressor, HeaderDecompressor, type HeaderPairs } from './spdy-header-block';

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

/**
 * What a session that accepts its peer's streams does with one opened, judged by its headers
 * (its SYN_STREAM's): the function that takes the stream accepts it (the session answers
 * SYN_REPLY first), none refuses it (RST_STREAM REFUSED_STREAM), as apimachinery's SPDY server
 * answers its stream handler's verdict.
 */
export type StreamAcceptor = (headers: HeaderPairs) => ((stream: SpdyStream) => void) | undefined;

/** The session: its streams, and the frames read from and written to the connection. */
export class SpdySession extends EventEmitter {
  private readonly streams = new Map<number, SpdyStream>();
  /** Streams whose reader has not caught up: while any is, the connection is not read. */
  private readonly full = new Set<SpdyStream>();
  private readonly compressor = new HeaderCompressor();
  /** The peer's header blocks, inflated only by a session that accepts streams (see the module's comment). */
  private readonly decompressor: HeaderDecompressor | undefined;
  /** SPDY/3 §2.3.2: the client's streams are odd, the server's even; the peer's pings are of its own parity. */
  private nextStreamId: number;
  private readonly peerParity: number;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private closed = false;
  private goneAway = false;

  /**
   * `head`: what came after the 101's headers, the session's first bytes. `accept`: the session
   * serves (the kubelet's side), handing each stream the peer opens to it; without it, it is the
   * client's side, which refuses the peer's streams, as the kubelet opens none toward a client.
   */
  constructor(
    private readonly socket: Duplex,
    head: Buffer = Buffer.alloc(0),
    private readonly accept?: StreamAcceptor,
  ) {
    super();
    this.decompressor = accept === undefined ? undefined : new HeaderDecompressor();
    this.nextStreamId = accept === undefined ? 1 : 2;
    this.peerParity = accept === undefined ? 0 : 1;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error: Error) => this.terminate(error));
    socket.on('close', () => this.terminate());
    socket.on('end', () => this.terminate());
    if (head.length > 0) this.onData(head);
  }

  /** Opens a stream with these headers (SYN_STREAM). */
  openStream(headers: HeaderPairs): SpdyStream {
    if (this.closed || this.goneAway) throw new Error('the SPDY session is closed');
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const stream = new SpdyStream(id, this);
    this.streams.set(id, stream);
    // Stream ID, no associated stream, priority 0 and slot 0, then the compressed headers.
    const payload = Buffer.concat([words(id, 0), Buffer.alloc(2), this.compressor.compress(headers)]);
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

  /** The SYN_REPLY accepting the peer's stream, with no headers (the kubelet sends none). */
  private reply(streamId: number): void {
    const payload = Buffer.concat([words(streamId), this.compressor.compress({})]);
    if (!this.closed && this.socket.writable) this.socket.write(controlFrame(FrameType.SynReply, 0, payload));
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
        this.onSynStream(streamId(), flags, payload);
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
        // The peer's pings are answered with the same ID; this side sends none of its own.
        if ((payload.readUInt32BE(0) & 1) === this.peerParity)
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

  /**
   * A stream the peer opens: stream ID, associated stream ID, priority and slot (10 bytes), then
   * its header block. A client's session refuses it; a serving one inflates every block (they
   * share one zlib stream) and hands the stream to `accept`. A block that cannot be read ends the
   * session, as spdystream ends it on a framing error.
   */
  private onSynStream(id: number, flags: number, payload: Buffer): void {
    if (this.accept === undefined || this.decompressor === undefined) {
      this.reset(id, RstStatus.refusedStream);
      return;
    }
    let headers: HeaderPairs;
    try {
      headers = this.decompressor.decompress(payload.subarray(10));
    } catch (error) {
      this.terminate(new Error(`SPDY: unreadable SYN_STREAM headers: ${(error as Error).message}`));
      return;
    }
    if (this.streams.has(id) || (id & 1) !== this.peerParity) {
      this.reset(id, RstStatus.protocolError);
      return;
    }
    const take = this.accept(headers);
    if (take === undefined) {
      this.reset(id, RstStatus.refusedStream);
      return;
    }
    const stream = new SpdyStream(id, this);
    this.streams.set(id, stream);
    this.reply(id);
    if ((flags & FLAG_FIN) !== 0) stream.receive(null);
    take(stream);
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
