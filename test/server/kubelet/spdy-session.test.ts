/**
 * The SPDY/3.1 client session against a peer this test plays on loopback, frame by frame: the
 * frames it writes (SYN_STREAM with its zlib-framed header block, DATA, FIN), what it makes of
 * the peer's (DATA and FIN, RST_STREAM as the stream's end, PING answered, the connection's end),
 * and backpressure: a stream nobody reads stops the connection being read, and takes the rest
 * once it is read. (Its interoperation with the kubelet's spdystream is tested through kwok.)
 * Then the serving side, which the test cluster's kubelet stand-in plays: the peer's streams
 * taken or refused by their headers (real deflate, one zlib stream across the session, as Go's
 * client writes them), and a client session and a serving one talking to each other.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { constants, createDeflate } from 'node:zlib';
import { HEADER_DICTIONARY } from '../../../server/kubelet/spdy-header-block';
import { SpdySession, type SpdyStream } from '../../../server/kubelet/spdy-session';
import { waitFor } from '../../helpers/wait-for';

interface Frame {
  readonly control: boolean;
  readonly type: number;
  readonly streamId: number;
  readonly flags: number;
  readonly payload: Buffer;
}

/** Reads the frames the session writes. */
class FrameReader {
  readonly frames: Frame[] = [];
  private buffer = Buffer.alloc(0);

  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      while (this.buffer.length >= 8 && this.buffer.length >= 8 + this.buffer.readUIntBE(5, 3)) {
        const length = this.buffer.readUIntBE(5, 3);
        const control = (this.buffer[0] & 0x80) !== 0;
        const payload = this.buffer.subarray(8, 8 + length);
        this.frames.push({
          control,
          type: control ? this.buffer.readUInt16BE(2) : 0,
          streamId: control
            ? payload.length >= 4
              ? payload.readUInt32BE(0) & 0x7fffffff
              : 0
            : this.buffer.readUInt32BE(0) & 0x7fffffff,
          flags: this.buffer[4],
          payload,
        });
        this.buffer = this.buffer.subarray(8 + length);
      }
    });
  }

  async next(what: string, match: (frame: Frame) => boolean): Promise<Frame> {
    return waitFor(what, async () => this.frames.find(match), 5_000, 10);
  }
}

function dataFrame(streamId: number, payload: Buffer, fin = false): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(streamId);
  header[4] = fin ? 1 : 0;
  header.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([header, payload]);
}

function controlFrame(type: number, payload: Buffer): Buffer {
  const header = Buffer.from([0x80, 3, 0, type, 0, 0, 0, 0]);
  header.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([header, payload]);
}

/** A stored deflate block's content (non-final, BTYPE 00), and where the next block starts. */
function storedBlock(bytes: Buffer, at: number): { content: Buffer; next: number } {
  expect(bytes[at]).toBe(0);
  const length = bytes.readUInt16LE(at + 1);
  expect(bytes.readUInt16LE(at + 3)).toBe(~length & 0xffff);
  return { content: bytes.subarray(at + 5, at + 5 + length), next: at + 5 + length };
}

describe('SPDY/3.1 client session', () => {
  let server: Server;
  let peer: Socket;
  let session: SpdySession;
  let frames: FrameReader;

  beforeEach(async () => {
    const accepted = new Promise<Socket>((resolve) => {
      server = createServer(resolve);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    peer = await accepted;
    frames = new FrameReader(peer);
    session = new SpdySession(client);
    session.on('error', () => undefined);
  });

  afterEach(async () => {
    session.close();
    peer.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('opens streams with SYN_STREAM, headers in one zlib stream primed with the SPDY/3 dictionary', async () => {
    session.openStream({ streamType: 'error' });
    session.openStream({ streamtype: 'stdin' });
    const first = await frames.next(
      'the first SYN_STREAM',
      (frame) => frame.control && frame.type === 1 && frame.streamId === 1,
    );
    const second = await frames.next(
      'the second SYN_STREAM',
      (frame) => frame.control && frame.type === 1 && frame.streamId === 3,
    );
    // Associated stream 0, priority 0, slot 0; then zlib's header with FDICT and the dictionary's Adler-32.
    expect(first.payload.subarray(4, 10)).toEqual(Buffer.alloc(6));
    expect(first.payload.subarray(10, 16)).toEqual(Buffer.from([0x78, 0x20, 0xe3, 0xc6, 0xa7, 0xc2]));
    const block = storedBlock(first.payload, 16);
    // One pair, names in lower case, 32-bit lengths; then the empty block a sync flush ends with.
    expect(block.content).toEqual(
      Buffer.concat([
        Buffer.from([0, 0, 0, 1, 0, 0, 0, 10]),
        Buffer.from('streamtype'),
        Buffer.from([0, 0, 0, 5]),
        Buffer.from('error'),
      ]),
    );
    expect(first.payload.subarray(block.next)).toEqual(Buffer.from([0, 0, 0, 0xff, 0xff]));
    // The zlib stream goes on: no second header.
    const next = storedBlock(second.payload, 10);
    expect(next.content.subarray(-5).toString()).toBe('stdin');
    expect(second.payload.subarray(next.next)).toEqual(Buffer.from([0, 0, 0, 0xff, 0xff]));
  });

  it('writes DATA and half-closes with FIN; reads DATA to the peer FIN', async () => {
    const stream = session.openStream({ streamtype: 'stdin' });
    stream.end('through stdin');
    const data = await frames.next('the data', (frame) => !frame.control && frame.payload.length > 0);
    expect({ id: data.streamId, text: data.payload.toString(), flags: data.flags }).toEqual({
      id: 1,
      text: 'through stdin',
      flags: 0,
    });
    const fin = await frames.next('the FIN', (frame) => !frame.control && frame.flags === 1);
    expect({ id: fin.streamId, length: fin.payload.length }).toEqual({ id: 1, length: 0 });

    const output = session.openStream({ streamtype: 'stdout' });
    peer.write(Buffer.concat([dataFrame(3, Buffer.from('hello ')), dataFrame(3, Buffer.from('world'), true)]));
    const chunks: Buffer[] = [];
    for await (const chunk of output) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('hello world');
  });

  it('answers the peer PING, ends a stream the peer resets, and ends every stream with the connection', async () => {
    const reset = session.openStream({ streamtype: 'error' });
    const open = session.openStream({ streamtype: 'stdout' });
    const ping = Buffer.alloc(4);
    ping.writeUInt32BE(2);
    const rst = Buffer.alloc(8);
    rst.writeUInt32BE(1, 0);
    rst.writeUInt32BE(5, 4);
    peer.write(
      Buffer.concat([controlFrame(6, ping), dataFrame(1, Buffer.from('said before the reset')), controlFrame(3, rst)]),
    );
    const pong = await frames.next('the PING answered', (frame) => frame.control && frame.type === 6);
    expect(pong.payload.readUInt32BE(0)).toBe(2);
    const before: Buffer[] = [];
    for await (const chunk of reset) before.push(chunk as Buffer);
    expect(Buffer.concat(before).toString()).toBe('said before the reset');
    peer.end();
    const rest: Buffer[] = [];
    for await (const chunk of open) rest.push(chunk as Buffer);
    expect(rest).toEqual([]);
  });

  it('stops reading the connection while a stream is not read, and takes the rest once it is', async () => {
    const stream = session.openStream({ streamtype: 'stdout' });
    stream.pause();
    const total = 32 * 1024 * 1024;
    const piece = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    const writeMore = () => {
      while (written < total) {
        written += piece.length;
        if (!peer.write(dataFrame(1, piece, written >= total))) return;
      }
    };
    peer.on('drain', writeMore);
    writeMore();
    // The peer cannot write it all: it stalls (what it wrote stays the same from one look to the
    // next) short of the end, with little held by the session; a session that kept reading would
    // take all 32 MiB into the stream's buffer.
    let last = -1;
    await waitFor(
      'the peer to stall',
      async () => {
        const stalled = written === last;
        last = written;
        return stalled ? true : undefined;
      },
      10_000,
      250,
    );
    expect(written).toBeLessThan(total);
    expect(stream.readableLength).toBeLessThan(1024 * 1024);
    let received = 0;
    stream.on('data', (chunk: Buffer) => (received += chunk.length));
    stream.resume();
    await new Promise((resolve) => stream.once('end', resolve));
    expect(received).toBe(total);
  });
});

/** The peer's header blocks as Go's spdystream writes them: one deflate stream with the dictionary, sync-flushed after each block. */
class GoLikeHeaderWriter {
  private readonly deflate = createDeflate({ dictionary: HEADER_DICTIONARY });
  private readonly output: Buffer[] = [];

  constructor() {
    this.deflate.on('data', (chunk: Buffer) => this.output.push(chunk));
  }

  async block(headers: Record<string, string>): Promise<Buffer> {
    const pairs = Object.entries(headers).flatMap(([name, value]) => [name, value]);
    const parts = [Buffer.alloc(4)];
    parts[0].writeUInt32BE(pairs.length / 2);
    for (const text of pairs) {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(Buffer.byteLength(text));
      parts.push(length, Buffer.from(text));
    }
    this.deflate.write(Buffer.concat(parts));
    await new Promise<void>((resolve) => this.deflate.flush(constants.Z_SYNC_FLUSH, () => resolve()));
    return Buffer.concat(this.output.splice(0));
  }
}

function synStream(id: number, compressedHeaders: Buffer): Buffer {
  const ids = Buffer.alloc(10);
  ids.writeUInt32BE(id, 0);
  return controlFrame(1, Buffer.concat([ids, compressedHeaders]));
}

/** What a stream reads up to its peer's FIN, the stream left open for writing (a `for await` would destroy it). */
function readToEnd(stream: SpdyStream): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks).toString()));
  });
}

function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

describe('SPDY/3.1 serving session', () => {
  let server: Server;
  let peer: Socket;
  let client: Socket;

  beforeEach(async () => {
    const accepted = new Promise<Socket>((resolve) => {
      server = createServer(resolve);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    peer = await accepted;
  });

  afterEach(async () => {
    client.destroy();
    peer.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('holds the SPDY/3 dictionary the zlib header names', () => {
    expect(HEADER_DICTIONARY.length).toBe(1423);
    expect(adler32(HEADER_DICTIONARY)).toBe(0xe3c6a7c2);
  });

  it('takes the streams its acceptor takes (SYN_REPLY), refuses the rest (RST_STREAM), and answers the peer PING', async () => {
    const seen: Record<string, string>[] = [];
    const taken: SpdyStream[] = [];
    const session = new SpdySession(peer, undefined, (headers) => {
      seen.push({ ...headers });
      return headers.streamtype === 'data' ? (stream) => taken.push(stream) : undefined;
    });
    session.on('error', () => undefined);
    const frames = new FrameReader(client);
    const writer = new GoLikeHeaderWriter();
    const ping = Buffer.alloc(4);
    ping.writeUInt32BE(1);
    client.write(
      Buffer.concat([
        synStream(1, await writer.block({ streamtype: 'data', port: '80', requestid: '0' })),
        synStream(3, await writer.block({ streamtype: 'bogus', port: '80', requestid: '0' })),
        dataFrame(1, Buffer.from('to the pod'), true),
        controlFrame(6, ping),
      ]),
    );
    const reply = await frames.next('the SYN_REPLY', (frame) => frame.control && frame.type === 2);
    expect(reply.streamId).toBe(1);
    const refusal = await frames.next('the RST_STREAM', (frame) => frame.control && frame.type === 3);
    expect({ id: refusal.streamId, status: refusal.payload.readUInt32BE(4) }).toEqual({ id: 3, status: 3 });
    const pong = await frames.next('the PING answered', (frame) => frame.control && frame.type === 6);
    expect(pong.payload.readUInt32BE(0)).toBe(1);
    expect(seen).toEqual([
      { streamtype: 'data', port: '80', requestid: '0' },
      { streamtype: 'bogus', port: '80', requestid: '0' },
    ]);

    const [stream] = taken;
    expect(await readToEnd(stream)).toBe('to the pod');
    stream.end('from the pod');
    const data = await frames.next('the answer', (frame) => !frame.control && frame.payload.length > 0);
    expect({ id: data.streamId, text: data.payload.toString() }).toEqual({ id: 1, text: 'from the pod' });
    await frames.next('its FIN', (frame) => !frame.control && frame.flags === 1);
    session.close();
  });

  it('talks to a client session: its stored header blocks read, half-closes both ways', async () => {
    const taken: { stream: SpdyStream; headers: Record<string, string> }[] = [];
    const serving = new SpdySession(peer, undefined, (headers) => (stream) => taken.push({ stream, headers }));
    serving.on('error', () => undefined);
    const session = new SpdySession(client);
    session.on('error', () => undefined);
    session.openStream({ streamtype: 'error', port: '80' }).on('error', () => undefined);
    const opened = session.openStream({ streamType: 'data', port: '80', requestID: '7' });
    await waitFor('both streams taken', async () => (taken.length === 2 ? true : undefined));
    expect(taken.map(({ stream, headers }) => ({ id: stream.id, headers }))).toEqual([
      { id: 1, headers: { streamtype: 'error', port: '80' } },
      { id: 3, headers: { streamtype: 'data', port: '80', requestid: '7' } },
    ]);
    // Each side's FIN ends what the other reads, and leaves its own way open.
    const accepted = taken[1].stream;
    opened.end('from the client');
    expect(await readToEnd(accepted)).toBe('from the client');
    accepted.end('answered after the client ended');
    expect(await readToEnd(opened)).toBe('answered after the client ended');
    session.close();
    serving.close();
  });
});
