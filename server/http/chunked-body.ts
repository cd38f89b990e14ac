/**
 * A chunked request body decoded as Go's server decodes it (net/http's chunked reader and its
 * trailer read), for the requests Node's parser does not read (foreign-method.ts): a chunk-size
 * line ends in CRLF (a bare LF or a CR elsewhere is an error), holds at most 16 hex digits
 * before optional spaces, tabs and a `;` extension, and fits Go's 4096-byte buffer with its
 * CRLF; chunk data ends in CRLF; the framing may not outweigh the data by more than 16 KiB;
 * after the zero chunk comes CRLF or a trailer ended by an empty line within 4096 bytes, which
 * is skipped unread (nothing here uses trailers, so its lines go unchecked). An error carries
 * Go's words. The data is only passed on: the 3 MiB body limit is the reader's
 * (request/body.ts), as for any body.
 */

/** Go's bufio buffer, which a chunk-size line and a trailer must fit in. */
const MAX_LINE_BYTES = 4096;
/** Go's allowance of framing beyond 16 bytes per chunk and the data's own size. */
const MAX_EXCESS_BYTES = 16 * 1024;
const MAX_HEX_DIGITS = 16;
const CR = 0x0d;
const LF = 0x0a;

export type ChunkedStep =
  | { readonly kind: 'data'; readonly data: Buffer }
  | { readonly kind: 'end' }
  | { readonly kind: 'error'; readonly message: string };

type State =
  | { readonly at: 'size' }
  | { readonly at: 'data'; remaining: number }
  | { readonly at: 'data-end' }
  | { readonly at: 'trailer' }
  | { readonly at: 'done' };

/** The chunk length of a size line's text (CRLF cut off), or Go's error. */
function chunkLength(line: Buffer): number | { error: string } {
  let end = line.length;
  while (end > 0 && (line[end - 1] === 0x20 || line[end - 1] === 0x09)) end--;
  const semicolon = line.subarray(0, end).indexOf(0x3b);
  const digits = line.toString('latin1', 0, semicolon < 0 ? end : semicolon);
  if (digits === '') return { error: 'empty hex number for chunk length' };
  if (!/^[0-9a-fA-F]*$/.test(digits)) return { error: 'invalid byte in chunk length' };
  if (digits.length > MAX_HEX_DIGITS) return { error: 'http chunk length too large' };
  const length = BigInt(`0x${digits}`);
  // Larger than any body the limit lets through: read up to the limit, then refused there.
  return length > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(length);
}

export class ChunkedBodyDecoder {
  private state: State = { at: 'size' };
  /** Bytes of an unfinished line or chunk end, kept until the rest arrives. */
  private pending = Buffer.alloc(0);
  private excess = 0;

  /** Decodes what arrived; the steps end at the body's end or at an error, and nothing more is taken after either. */
  feed(chunk: Buffer): ChunkedStep[] {
    const steps: ChunkedStep[] = [];
    let bytes = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (bytes.length > 0 && this.state.at !== 'done') {
      const state = this.state;
      if (state.at === 'data') {
        const data = bytes.subarray(0, Math.min(state.remaining, bytes.length));
        state.remaining -= data.length;
        bytes = bytes.subarray(data.length);
        steps.push({ kind: 'data', data });
        if (state.remaining === 0) this.state = { at: 'data-end' };
        continue;
      }
      if (state.at === 'data-end') {
        if (bytes.length < 2) break;
        if (bytes[0] !== CR || bytes[1] !== LF) return this.fail(steps, 'malformed chunked encoding');
        bytes = bytes.subarray(2);
        this.state = { at: 'size' };
        continue;
      }
      if (state.at === 'trailer') {
        if (bytes.length < 2) break;
        const terminator = bytes.indexOf('\r\n\r\n');
        const end = bytes[0] === CR && bytes[1] === LF ? 2 : terminator < 0 ? undefined : terminator + 4;
        if (end === undefined && bytes.length < MAX_LINE_BYTES) break;
        if (end === undefined || end > MAX_LINE_BYTES)
          return this.fail(steps, 'http: suspiciously long trailer after chunked body');
        this.state = { at: 'done' };
        steps.push({ kind: 'end' });
        return steps;
      }
      const lineEnd = bytes.indexOf(LF);
      if (lineEnd < 0) {
        if (bytes.length >= MAX_LINE_BYTES) return this.fail(steps, 'header line too long');
        break;
      }
      const carriageReturn = bytes.indexOf(CR);
      if (carriageReturn < 0 || carriageReturn > lineEnd) return this.fail(steps, 'chunked line ends with bare LF');
      if (carriageReturn !== lineEnd - 1) return this.fail(steps, 'invalid CR in chunked line');
      // The line with its CRLF must fit Go's buffer.
      if (lineEnd + 1 > MAX_LINE_BYTES) return this.fail(steps, 'header line too long');
      const line = bytes.subarray(0, lineEnd - 1);
      const length = chunkLength(line);
      if (typeof length !== 'number') return this.fail(steps, length.error);
      this.excess = Math.max(this.excess + line.length + 2 - 16 - 2 * length, 0);
      if (this.excess > MAX_EXCESS_BYTES) return this.fail(steps, 'chunked encoding contains too much non-data');
      bytes = bytes.subarray(lineEnd + 1);
      this.state = length === 0 ? { at: 'trailer' } : { at: 'data', remaining: length };
    }
    this.pending = Buffer.from(bytes);
    return steps;
  }

  private fail(steps: ChunkedStep[], message: string): ChunkedStep[] {
    this.state = { at: 'done' };
    steps.push({ kind: 'error', message });
    return steps;
  }
}
