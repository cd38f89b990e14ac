/**
 * Bytes as a Go string holds them. Go keeps bytes that are no UTF-8 (from a query's `%FF`, or
 * a string cut at a byte offset), and each of its printers shows such a stray byte its own way:
 * `%q` as `\xff`, encoding/json as the escape `\ufffd`. Where capstan must print a stray byte
 * later as Go would, it holds it as a lone low surrogate, U+DC00 plus the byte (U+DC80 to
 * U+DCFF, as Python's surrogateescape does): JavaScript strings have no other room for it. Only
 * a JSON body escaping those very code points unpaired reads the same, and no client sends one.
 */

const STRAY_BYTE_BASE = 0xdc00;

/** The character that holds a stray byte (0x80 to 0xff). */
export function strayByteCharacter(byte: number): string {
  return String.fromCharCode(STRAY_BYTE_BASE + byte);
}

/** The stray byte a UTF-16 code unit holds, or undefined when it holds none. */
export function strayByteOf(code: number): number | undefined {
  return code >= STRAY_BYTE_BASE + 0x80 && code <= STRAY_BYTE_BASE + 0xff ? code - STRAY_BYTE_BASE : undefined;
}

/** The second byte's range of a sequence starting with `lead`, by Go's rules (no overlong forms, no surrogates, nothing past U+10FFFF). */
function secondByteRange(lead: number): readonly [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/** How many bytes a sequence starting with `lead` has; 0 for a byte that starts none. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * The text of bytes as Go's utf8.DecodeRune walks them: each valid sequence a character, and
 * each byte of an invalid or cut one, on its own, whatever `stray` makes of it.
 */
export function decodeGoBytes(bytes: Uint8Array, stray: (byte: number) => string): string {
  let text = '';
  let at = 0;
  while (at < bytes.length) {
    const lead = bytes[at];
    const length = sequenceLength(lead);
    let valid = length > 0 && at + length <= bytes.length;
    if (valid && length > 1) {
      const [low, high] = secondByteRange(lead);
      valid = bytes[at + 1] >= low && bytes[at + 1] <= high;
      for (let i = 2; valid && i < length; i++) valid = (bytes[at + i] & 0xc0) === 0x80;
    }
    if (!valid) {
      text += stray(lead);
      at += 1;
      continue;
    }
    let code = length === 1 ? lead : lead & (0xff >> (length + 1));
    for (let i = 1; i < length; i++) code = (code << 6) | (bytes[at + i] & 0x3f);
    text += String.fromCodePoint(code);
    at += length;
  }
  return text;
}

/** The bytes Go holds for the text: its UTF-8, with each stray byte as itself. */
export function goBytesOf(text: string): Buffer {
  const bytes: number[] = [];
  for (const character of text) {
    const stray = strayByteOf(character.charCodeAt(0));
    if (stray !== undefined) bytes.push(stray);
    else bytes.push(...Buffer.from(character, 'utf8'));
  }
  return Buffer.from(bytes);
}

/** The text as a client reads Go's JSON of it: each stray byte a U+FFFD. */
export function wellFormed(text: string): string {
  if (!/[\udc80-\udcff]/.test(text)) return text;
  let out = '';
  for (const character of text) out += strayByteOf(character.codePointAt(0)!) === undefined ? character : '\ufffd';
  return out;
}
