/** PEM text as Go's pem.Decode reads it, for the certificate kinds' validation. */

export interface DecodedPEMBlock {
  readonly type: string;
  readonly hasHeaders: boolean;
  readonly bytes: Buffer;
}

const PEM_START = Buffer.from('\n-----BEGIN ');
const PEM_END = Buffer.from('\n-----END ');
const END_OF_LINE = '-----';
const NEWLINE = 0x0a;

/** Go's getLine: one line without its line break or trailing blanks, and what follows it. */
function getLine(data: Buffer): { line: Buffer; rest: Buffer; consumed: number } {
  let end = data.indexOf(NEWLINE);
  let next: number;
  if (end < 0) end = next = data.length;
  else {
    next = end + 1;
    if (end > 0 && data[end - 1] === 0x0d) end--;
  }
  let trimmed = end;
  while (trimmed > 0 && (data[trimmed - 1] === 0x20 || data[trimmed - 1] === 0x09)) trimmed--;
  return { line: data.subarray(0, trimmed), rest: data.subarray(next), consumed: next };
}

/** Go's base64.StdEncoding.Decode, which skips line breaks but wants its padding. */
function strictBase64(text: string): Buffer | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
  return Buffer.from(compact, 'base64');
}

/**
 * Go's pem.Decode exactly, for checks whose messages depend on where it gives up: the next block
 * (BEGIN and END lines at line starts with the same type, base64 that decodes) and the rest after
 * it, or no block and the whole input back.
 */
export function decodePEM(data: Buffer): { block?: DecodedPEMBlock; rest: Buffer } {
  let rest = data;
  let endTrailerIndex = 0;
  for (;;) {
    if (endTrailerIndex < 0 || endTrailerIndex > rest.length) return { rest: data };
    rest = rest.subarray(endTrailerIndex);
    // The first END line, then the last BEGIN before it: repeated BEGIN lines without an END are skipped.
    let endIndex = rest.indexOf(PEM_END);
    if (endIndex < 0) return { rest: data };
    endTrailerIndex = endIndex + PEM_END.length;
    const beginIndex = rest.subarray(0, endIndex).lastIndexOf(PEM_START.subarray(1));
    if (beginIndex < 0 || (beginIndex > 0 && rest[beginIndex - 1] !== NEWLINE)) continue;
    const skipped = beginIndex + PEM_START.length - 1;
    rest = rest.subarray(skipped);
    endIndex -= skipped;
    endTrailerIndex -= skipped;
    const typeLine = getLine(rest);
    rest = typeLine.rest;
    endIndex -= typeLine.consumed;
    endTrailerIndex -= typeLine.consumed;
    const typeText = typeLine.line.toString('latin1');
    if (!typeText.endsWith(END_OF_LINE)) continue;
    const type = typeText.slice(0, -END_OF_LINE.length);
    let headers = 0;
    for (;;) {
      if (rest.length === 0) return { rest: data };
      const header = getLine(rest);
      if (!header.line.includes(':')) break;
      headers++;
      rest = header.rest;
      endIndex -= header.consumed;
      endTrailerIndex -= header.consumed;
    }
    // Headers need a line break between them and the END line.
    if (headers > 0 && endIndex < 0) continue;
    const trailerLength = type.length + END_OF_LINE.length;
    const trailerStart = rest.subarray(endTrailerIndex);
    if (trailerStart.length < trailerLength) continue;
    const trailer = trailerStart.subarray(0, trailerLength).toString('latin1');
    if (!trailer.startsWith(type) || !trailer.endsWith(END_OF_LINE)) continue;
    if (getLine(trailerStart.subarray(trailerLength)).line.length !== 0) continue;
    let bytes: Buffer | undefined = Buffer.alloc(0);
    if (endIndex > 0) {
      bytes = strictBase64(rest.subarray(0, endIndex).toString('latin1').replace(/[ \t]/g, ''));
      if (bytes === undefined) continue;
    }
    // The END line may directly follow the type line of an empty block, without its leading line break.
    return {
      block: { type, hasHeaders: headers > 0, bytes },
      rest: getLine(rest.subarray(endIndex + PEM_END.length - 1)).rest,
    };
  }
}

/** Go's pem.Decode called again on what it leaves, until it finds no block: every block, in order. */
export function pemBlocks(text: string): { type: string; hasHeaders: boolean; der: Buffer }[] {
  const blocks = [];
  let rest: Buffer = Buffer.from(text, 'utf8');
  for (;;) {
    const decoded = decodePEM(rest);
    if (decoded.block === undefined) return blocks;
    const { type, hasHeaders, bytes } = decoded.block;
    blocks.push({ type, hasHeaders, der: bytes });
    rest = decoded.rest;
  }
}
