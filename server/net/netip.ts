/**
 * IP addresses and prefixes as Go's net/netip reads and writes them, for CEL's ip and cidr
 * libraries, the service IP ranges and the address flags: the reference's results (which
 * strings parse, canonical forms, containment) and its error texts are netip's, which Node's
 * `net` does not reproduce (it has no prefixes, and says nothing of why a string is not an
 * address). Apart from CEL so that the flags do not load its engine.
 */
import { goQuote } from '../../api/go-quote';

/** An address: 4 bytes (IPv4) or 16 (IPv6), with the zone an IPv6 address may name. */
export class NetAddr {
  constructor(
    readonly bytes: Uint8Array,
    readonly zone = '',
  ) {}

  get is4(): boolean {
    return this.bytes.length === 4;
  }

  /** An IPv4 address written as IPv6 (`::ffff:1.2.3.4`). */
  get is4In6(): boolean {
    return (
      !this.is4 &&
      this.bytes.subarray(0, 10).every((b) => b === 0) &&
      this.bytes[10] === 0xff &&
      this.bytes[11] === 0xff
    );
  }

  private group(index: number): number {
    return (this.bytes[2 * index] << 8) | this.bytes[2 * index + 1];
  }

  toString(): string {
    if (this.is4) return this.bytes.join('.');
    if (this.is4In6) return `::ffff:${[...this.bytes.subarray(12)].join('.')}${this.zone ? `%${this.zone}` : ''}`;
    // The longest run of two or more zero groups (the first of equals) becomes `::`.
    let zeroStart = -1;
    let zeroEnd = -1;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && this.group(j) === 0) j++;
      if (j - i >= 2 && j - i > zeroEnd - zeroStart) [zeroStart, zeroEnd] = [i, j];
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === zeroStart) {
        out += '::';
        i = zeroEnd - 1;
        continue;
      }
      if (i > 0 && !out.endsWith(':')) out += ':';
      out += this.group(i).toString(16);
    }
    return this.zone ? `${out}%${this.zone}` : out;
  }

  equals(other: NetAddr): boolean {
    return this.zone === other.zone && Buffer.compare(this.bytes, other.bytes) === 0;
  }

  get isUnspecified(): boolean {
    return this.bytes.every((b) => b === 0);
  }

  get isLoopback(): boolean {
    if (this.is4) return this.bytes[0] === 127;
    return this.bytes.subarray(0, 15).every((b) => b === 0) && this.bytes[15] === 1;
  }

  get isMulticast(): boolean {
    return this.is4 ? (this.bytes[0] & 0xf0) === 0xe0 : this.bytes[0] === 0xff;
  }

  get isLinkLocalUnicast(): boolean {
    if (this.is4) return this.bytes[0] === 169 && this.bytes[1] === 254;
    return (this.group(0) & 0xffc0) === 0xfe80;
  }

  get isLinkLocalMulticast(): boolean {
    if (this.is4) return this.bytes[0] === 224 && this.bytes[1] === 0 && this.bytes[2] === 0;
    return (this.group(0) & 0xff0f) === 0xff02;
  }

  /** As Go (and package net) says: private addresses count, the broadcast address does not. */
  get isGlobalUnicast(): boolean {
    if (this.is4 && (this.isUnspecified || this.bytes.every((b) => b === 255))) return false;
    return !this.isUnspecified && !this.isLoopback && !this.isMulticast && !this.isLinkLocalUnicast;
  }
}

/** A prefix: an address (not necessarily masked) and how many of its leading bits count. */
export class NetPrefix {
  constructor(
    readonly addr: NetAddr,
    readonly bits: number,
  ) {}

  toString(): string {
    return `${this.addr}/${this.bits}`;
  }

  equals(other: NetPrefix): boolean {
    return this.bits === other.bits && this.addr.equals(other.addr);
  }

  /** The prefix with the bits past its length cleared. */
  masked(): NetPrefix {
    return new NetPrefix(new NetAddr(maskBytes(this.addr.bytes, this.bits)), this.bits);
  }

  contains(addr: NetAddr): boolean {
    if (addr.zone !== '' || addr.bytes.length !== this.addr.bytes.length) return false;
    return sameLeadingBits(this.addr.bytes, addr.bytes, this.bits);
  }

  overlaps(other: NetPrefix): boolean {
    if (this.addr.bytes.length !== other.addr.bytes.length) return false;
    return sameLeadingBits(this.addr.bytes, other.addr.bytes, Math.min(this.bits, other.bits));
  }
}

function maskBytes(bytes: Uint8Array, bits: number): Uint8Array {
  return bytes.map((byte, i) => {
    const kept = Math.max(0, Math.min(8, bits - 8 * i));
    return byte & ((0xff << (8 - kept)) & 0xff);
  });
}

function sameLeadingBits(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  return Buffer.compare(maskBytes(a, bits), maskBytes(b, bits)) === 0;
}

/** Go's parseAddrError text. */
function addrError(input: string, message: string, at = ''): string {
  return `ParseAddr(${goQuote(input)}): ${message}${at ? ` (at ${goQuote(at)})` : ''}`;
}

/** The four fields of `input.slice(start, end)` into `out` at `offset`, or netip's complaint. */
function parseIPv4Fields(
  input: string,
  start: number,
  end: number,
  out: Uint8Array,
  offset: number,
): string | undefined {
  const s = input.slice(start, end);
  let value = 0;
  let position = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits === 1 && value === 0) return addrError(input, 'IPv4 field has octet with leading zero');
      value = value * 10 + Number(c);
      digits++;
      if (value > 255) return addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.')
        return addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (position === 3) return addrError(input, 'IPv4 address too long');
      out[offset + position++] = value;
      value = 0;
      digits = 0;
    } else {
      return addrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (position < 3) return addrError(input, 'IPv4 address too short');
  out[offset + 3] = value;
  return undefined;
}

const HEX_DIGIT = /^[0-9a-fA-F]$/;

function parseIPv6(input: string): NetAddr | string {
  let s = input;
  let zone = '';
  const percent = s.indexOf('%');
  if (percent >= 0) {
    zone = s.slice(percent + 1);
    s = s.slice(0, percent);
    if (zone === '') return addrError(input, 'zone must be a non-empty string');
  }
  const bytes = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return new NetAddr(bytes, zone);
  }
  let i = 0;
  while (i < 16) {
    let digits = 0;
    let group = 0;
    for (; digits < s.length && HEX_DIGIT.test(s[digits]); digits++) {
      group = group * 16 + parseInt(s[digits], 16);
      if (digits > 3) return addrError(input, 'each group must have 4 or less digits', s);
    }
    if (digits === 0) return addrError(input, 'each colon-separated field must have at least one digit', s);
    if (digits < s.length && s[digits] === '.') {
      if (ellipsis < 0 && i !== 12)
        return addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16)
        return addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone ? zone.length + 1 : 0);
      const failed = parseIPv4Fields(input, end - s.length, end, bytes, i);
      if (failed) return failed;
      s = '';
      i += 4;
      break;
    }
    bytes[i] = group >> 8;
    bytes[i + 1] = group & 0xff;
    i += 2;
    s = s.slice(digits);
    if (s === '') break;
    if (s[0] !== ':') return addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) return addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) return addrError(input, 'address string too short');
    const shift = 16 - i;
    bytes.copyWithin(ellipsis + shift, ellipsis, i);
    bytes.fill(0, ellipsis, ellipsis + shift);
  } else if (ellipsis >= 0) {
    return addrError(input, 'the :: must expand to at least one field of zeros');
  }
  return new NetAddr(bytes, zone);
}

/** Go's netip.ParseAddr: the address, or its error text. */
export function parseAddr(input: string): NetAddr | string {
  for (const c of input) {
    if (c === '.') {
      const bytes = new Uint8Array(4);
      return parseIPv4Fields(input, 0, input.length, bytes, 0) ?? new NetAddr(bytes);
    }
    if (c === ':') return parseIPv6(input);
    if (c === '%') return addrError(input, 'missing IPv6 address');
  }
  return addrError(input, 'unable to parse IP');
}

/** Go's netip.ParsePrefix: the prefix, or its error text. */
export function parsePrefix(input: string): NetPrefix | string {
  const failure = (message: string) => `netip.ParsePrefix(${goQuote(input)}): ${message}`;
  const slash = input.lastIndexOf('/');
  if (slash < 0) return failure("no '/'");
  const addr = parseAddr(input.slice(0, slash));
  if (typeof addr === 'string') return failure(addr);
  if (addr.zone !== '') return failure('IPv6 zones cannot be present in a prefix');
  const bitsText = input.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText)) return failure(`bad bits after slash: ${goQuote(bitsText)}`);
  const bits = Number(bitsText);
  if (!Number.isSafeInteger(bits)) return failure(`bad bits after slash: ${goQuote(bitsText)}`);
  if (bits > addr.bytes.length * 8) return failure('prefix length out of range');
  return new NetPrefix(addr, bits);
}
