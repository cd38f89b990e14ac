/**
 * SPDY/3 header blocks (§2.6.10): a count of pairs, then each name (lower case) and value with
 * 32-bit lengths, compressed as one zlib stream per direction of the session, primed with the
 * protocol's dictionary.
 *
 * - Written as stored (uncompressed) deflate blocks, which need only the dictionary's Adler-32
 *   for the zlib header.
 * - Read with fflate's streaming inflater. A peer's blocks are real deflate output, each ended
 *   by a sync flush (Go's spdystream flushes after every block), so each frame's block inflates
 *   whole and at once; node's own zlib streams hand their output over asynchronously, which
 *   would let a stream's DATA overtake its SYN_STREAM.
 */
import type { Unzlib } from 'fflate';

/** Adler-32 of the SPDY/3 header dictionary (§2.6.10.1): the zlib header's DICTID. */
const DICTIONARY_ADLER32 = 0xe3c6a7c2;
/** zlib's CMF (deflate, 32 KiB window) and FLG (FDICT set, check bits making CMF·256+FLG a multiple of 31). */
const ZLIB_HEADER = [0x78, 0x20];
const STORED_BLOCK_MAX = 0xffff;
/** An empty non-final stored block: what a zlib sync flush writes last. */
const SYNC_FLUSH_BLOCK = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

/** The dictionary's first part (§2.6.10.1): these words, each after its 32-bit length. */
const DICTIONARY_WORDS = [
  'options',
  'head',
  'post',
  'put',
  'delete',
  'trace',
  'accept',
  'accept-charset',
  'accept-encoding',
  'accept-language',
  'accept-ranges',
  'age',
  'allow',
  'authorization',
  'cache-control',
  'connection',
  'content-base',
  'content-encoding',
  'content-language',
  'content-length',
  'content-location',
  'content-md5',
  'content-range',
  'content-type',
  'date',
  'etag',
  'expect',
  'expires',
  'from',
  'host',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'pragma',
  'proxy-authenticate',
  'proxy-authorization',
  'range',
  'referer',
  'retry-after',
  'server',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'user-agent',
  'vary',
  'via',
  'warning',
  'www-authenticate',
  'method',
  'get',
  'status',
  '200 OK',
  'version',
  'HTTP/1.1',
  'url',
  'public',
  'set-cookie',
  'keep-alive',
  'origin',
];
/** Its second part, as it stands. */
const DICTIONARY_TAIL =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
  '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,' +
  'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

/** The SPDY/3 header dictionary; its Adler-32 is DICTIONARY_ADLER32. */
export const HEADER_DICTIONARY: Buffer = Buffer.concat([
  ...DICTIONARY_WORDS.map((word) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(word.length);
    return Buffer.concat([length, Buffer.from(word, 'latin1')]);
  }),
  Buffer.from(DICTIONARY_TAIL, 'latin1'),
]);

/** A header block's pairs; a name the peer sent several values for holds them NUL-separated, as SPDY carries them. */
export type HeaderPairs = Readonly<Record<string, string>>;

/** A header block, uncompressed. */
export function encodeHeaderBlock(headers: HeaderPairs): Buffer {
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

/** An uncompressed header block's pairs; throws on one cut short. */
export function decodeHeaderBlock(block: Buffer): HeaderPairs {
  let at = 0;
  const take = (): string => {
    if (at + 4 > block.length) throw new Error('SPDY: header block cut short');
    const length = block.readUInt32BE(at);
    if (at + 4 + length > block.length) throw new Error('SPDY: header block cut short');
    const text = block.toString('utf8', at + 4, at + 4 + length);
    at += 4 + length;
    return text;
  };
  if (block.length < 4) throw new Error('SPDY: header block cut short');
  const count = block.readUInt32BE(0);
  at = 4;
  const headers: Record<string, string> = {};
  for (let pair = 0; pair < count; pair++) {
    const name = take().toLowerCase();
    headers[name] = take();
  }
  return headers;
}

/**
 * One direction's compression: a zlib stream across the whole session (its header and DICTID in
 * the first block only), each header block a run of non-final stored deflate blocks ended by an
 * empty one, as zlib's sync flush ends its output. The empty block matters: Go's inflater,
 * having copied a stored block to its end, reads the next block's header before it hands the
 * bytes over, and the frame must hold that header.
 */
export class HeaderCompressor {
  private started = false;

  compress(headers: HeaderPairs): Buffer {
    const block = encodeHeaderBlock(headers);
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

/** The other direction: the peer's compressed header blocks, in the order they came, back to their pairs. */
export class HeaderDecompressor {
  // fflate is required here, by the first session a peer opens, not at start: loading it builds
  // its tables (about 0.3 MiB of typed arrays) that an idle server would hold for nothing.
  private readonly inflater: Unzlib = new (require('fflate') as typeof import('fflate')).Unzlib({
    dictionary: HEADER_DICTIONARY,
  });
  private output: Uint8Array[] = [];

  constructor() {
    this.inflater.ondata = (chunk) => this.output.push(chunk);
  }

  /** Throws when the bytes are no zlib stream (fflate's error) or the block within is malformed. */
  decompress(compressed: Buffer): HeaderPairs {
    this.inflater.push(compressed, false);
    const block = Buffer.concat(this.output);
    this.output = [];
    return decodeHeaderBlock(block);
  }
}
