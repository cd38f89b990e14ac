/**
 * URLs as Go's net/url reads them (the Go 1.26 the reference is built with): `url.Parse`, which
 * the reference checks webhook URLs with, and `url.ParseRequestURI`, which its HTTP server reads
 * a request target with and CEL's url library, the `uri` format and the WebSocket Origin check
 * use. The reference's answers follow from the parts Go finds and its messages quote Go's
 * errors; WHATWG's URL (Node's) reads many strings differently (a missing scheme, a space in a
 * host, an empty user, a stray escape), so it cannot stand in.
 *
 * Go's strings are bytes: what an escape decodes to is read here as UTF-8, as it reaches a
 * client (Go's JSON writes invalid UTF-8 as U+FFFD too).
 */
import { goQuote } from '../../api/go-quote';
import { parseAddr } from './netip';

/** Go's Userinfo: a user name and, after a colon, a password. */
export class GoUserinfo {
  constructor(
    /** As written (escapes checked). */
    private readonly writtenUsername: string,
    /** As written, or undefined without a colon. */
    private readonly writtenPassword: string | undefined,
  ) {}

  /** Go's Userinfo.String: unescaped and escaped again, `name[:password]`. */
  toString(): string {
    const reescape = (text: string) => escape(unescapedBytes(text, 'userPassword'), 'userPassword');
    const name = reescape(this.writtenUsername);
    return this.writtenPassword === undefined ? name : `${name}:${reescape(this.writtenPassword)}`;
  }
}

/** Go's URL, with the fields the reference reads. A URL with an opaque part (`mailto:x`) has no path. */
export class GoURL {
  constructor(
    /** Lower-cased. */
    readonly scheme: string,
    /** Undefined without an `@` in the authority. */
    readonly user: GoUserinfo | undefined,
    /** `host[:port]`, unescaped. */
    readonly host: string,
    /** The path as written (escapes checked): Go's Path and RawPath both follow from it. */
    private readonly writtenPath: string,
    /** As written, without the `?`. */
    readonly rawQuery: string,
    /** Unescaped. */
    readonly fragment: string,
  ) {}

  /** Go's EscapedPath: the path as written where that is a valid escaping, else Go's escaping of it. */
  escapedPath(): string {
    const path = unescapedBytes(this.writtenPath, 'path');
    const escaped = escape(path, 'path');
    // Go keeps a RawPath only where its own escaping differs from what was written.
    if (escaped !== this.writtenPath && validEncodedPath(this.writtenPath)) return this.writtenPath;
    // Go leaves the path of `*` (an OPTIONS target) unescaped.
    if (path.length === 1 && path[0] === 0x2a) return '*';
    return escaped;
  }

  /** This URL with the fragment Parse cut off before reading the rest. */
  withFragment(fragment: string): GoURL {
    return new GoURL(this.scheme, this.user, this.host, this.writtenPath, this.rawQuery, fragment);
  }

  /** Go's Hostname: the host without a valid port, and without the brackets of an IPv6 literal. */
  hostname(): string {
    return splitHostPort(this.host).hostname;
  }

  /** Go's Port: the digits after the host's last colon, or ''. */
  port(): string {
    return splitHostPort(this.host).port;
  }

  /** Go's Query: ParseQuery of the raw query, keeping the pairs that parse. */
  query(): Map<string, string[]> {
    const values = new Map<string, string[]>();
    if (!withinMaxQueryParameters(this.rawQuery)) return values;
    for (const pair of this.rawQuery.split('&')) {
      if (pair === '' || pair.includes(';')) continue;
      const equals = pair.indexOf('=');
      const key = unescape(equals < 0 ? pair : pair.slice(0, equals), 'queryComponent');
      const value = unescape(equals < 0 ? '' : pair.slice(equals + 1), 'queryComponent');
      if (key.error !== undefined || value.error !== undefined) continue;
      values.set(key.value, [...(values.get(key.value) ?? []), value.value]);
    }
    return values;
  }
}

/** Go's url.Error text: `parse "<url>": <reason>`. */
export interface GoURLError {
  readonly error: string;
}

/** Go's url.Parse: a URL, absolute or relative, with an optional fragment. */
export function parseGoURL(raw: string): GoURL | GoURLError {
  const hash = raw.indexOf('#');
  const beforeFragment = hash < 0 ? raw : raw.slice(0, hash);
  const parsed = parse(beforeFragment, { viaRequest: false });
  if (typeof parsed === 'string') return urlError(beforeFragment, parsed);
  if (hash < 0 || hash === raw.length - 1) return parsed;
  const fragment = unescape(raw.slice(hash + 1), 'fragment');
  if (fragment.error !== undefined) return urlError(raw, fragment.error);
  return parsed.withFragment(fragment.value);
}

/**
 * Go's url.ParseRequestURI: an absolute URL or an absolute path, as an HTTP request carries it.
 * It knows no fragment: a `#` stays in the host, path or query it stands in.
 */
export function parseGoRequestURI(raw: string): GoURL | GoURLError {
  const parsed = parse(raw, { viaRequest: true });
  return typeof parsed === 'string' ? urlError(raw, parsed) : parsed;
}

function urlError(raw: string, reason: string): GoURLError {
  return { error: `parse ${goQuote(raw)}: ${reason}` };
}

const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

/** Go's parse: the URL, or the reason it is refused. */
function parse(raw: string, { viaRequest }: { readonly viaRequest: boolean }): GoURL | string {
  if (CONTROL_CHARACTER.test(raw)) return 'net/url: invalid control character in URL';
  if (raw === '' && viaRequest) return 'empty url';
  if (raw === '*') return new GoURL('', undefined, '', '*', '', '');
  const scheme = schemeOf(raw);
  if (typeof scheme !== 'string') return scheme.error;
  let rest = scheme === '' ? raw : raw.slice(scheme.length + 1);
  let rawQuery = '';
  const question = rest.indexOf('?');
  if (question >= 0) [rest, rawQuery] = [rest.slice(0, question), rest.slice(question + 1)];
  const lowerScheme = scheme.toLowerCase();
  if (!rest.startsWith('/')) {
    // A rootless path after a scheme is Go's opaque part.
    if (scheme !== '') return new GoURL(lowerScheme, undefined, '', '', rawQuery, '');
    if (viaRequest) return 'invalid URI for request';
    // A relative path whose first segment has a colon would read as a malformed scheme.
    if (rest.split('/')[0].includes(':')) return 'first path segment in URL cannot contain colon';
  }
  let user: GoUserinfo | undefined;
  let host = '';
  if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = parseAuthority(lowerScheme, slash < 0 ? rest.slice(2) : rest.slice(2, slash));
    if (typeof authority === 'string') return authority;
    ({ user, host } = authority);
    rest = slash < 0 ? '' : rest.slice(slash);
  }
  const pathError = escapeError(rest, 'path');
  if (pathError !== undefined) return pathError;
  return new GoURL(lowerScheme, user, host, rest, rawQuery, '');
}

/** Go's getScheme: the scheme before the first colon, '' when there is none, or its error. */
function schemeOf(raw: string): string | GoURLError {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return '';
      continue;
    }
    if (c === ':') return i === 0 ? { error: 'missing protocol scheme' } : raw.slice(0, i);
    return '';
  }
  return '';
}

/** Go's validUserinfo: the characters user information may hold (escapes are checked apart). */
const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

/** Go's parseAuthority: `[userinfo@]host[:port]`, or the reason it is refused. */
function parseAuthority(
  scheme: string,
  authority: string,
): { readonly user: GoUserinfo | undefined; readonly host: string } | string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (host.error !== undefined) return host.error;
  if (at < 0) return { user: undefined, host: host.value };
  const userinfo = authority.slice(0, at);
  if (!USERINFO.test(userinfo)) return 'net/url: invalid userinfo';
  const colon = userinfo.indexOf(':');
  const username = colon < 0 ? userinfo : userinfo.slice(0, colon);
  const password = colon < 0 ? undefined : userinfo.slice(colon + 1);
  const error = escapeError(username, 'userPassword') ?? escapeError(password ?? '', 'userPassword');
  if (error !== undefined) return error;
  return { user: new GoUserinfo(username, password), host: host.value };
}

type Unescaped = { readonly value: string; readonly error?: undefined } | { readonly error: string };

/** Go's parseHost: an IP literal in brackets, or a name, each with an optional numeric port; unescaped. */
function parseHost(scheme: string, host: string): Unescaped {
  const open = host.lastIndexOf('[');
  if (open > 0) return { error: 'invalid IP-literal' };
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) return { error: "missing ']' in host" };
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) return { error: `invalid port ${goQuote(colonPort)} after host` };
    // An escaped `%` (RFC 6874) starts the zone, which may escape more than the address may.
    const literal = host.slice(1, close);
    const zone = literal.indexOf('%25');
    const address = unescape(zone < 0 ? literal : literal.slice(0, zone), 'host');
    if (address.error !== undefined) return address;
    const zonePart = unescape(zone < 0 ? '' : literal.slice(zone), 'zone');
    if (zonePart.error !== undefined) return zonePart;
    const hostname = address.value + zonePart.value;
    const addr = parseAddr(hostname);
    if (typeof addr === 'string') return { error: `invalid host: ${addr}` };
    if (addr.is4) return { error: 'invalid IP-literal' };
    return { value: `[${hostname}]${colonPort}` };
  }
  const firstColon = host.indexOf(':');
  if (firstColon >= 0) {
    // Go 1.26 reads the port after the first colon for http(s), after the last for other schemes.
    const colon = scheme === 'http' || scheme === 'https' ? firstColon : host.lastIndexOf(':');
    const colonPort = host.slice(colon);
    if (!validOptionalPort(colonPort)) return { error: `invalid port ${goQuote(colonPort)} after host` };
  }
  return unescape(host, 'host');
}

function validOptionalPort(colonPort: string): boolean {
  return colonPort === '' || /^:[0-9]*$/.test(colonPort);
}

/** Go's splitHostPort for Hostname and Port: a port only where it is valid. */
function splitHostPort(hostPort: string): { readonly hostname: string; readonly port: string } {
  let hostname = hostPort;
  let port = '';
  const colon = hostPort.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(hostPort.slice(colon))) {
    [hostname, port] = [hostPort.slice(0, colon), hostPort.slice(colon + 1)];
  }
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  return { hostname, port };
}

/** Go's limit on the pairs of a query it parses (urlmaxqueryparams at its default). */
const MAX_QUERY_PARAMETERS = 10_000;

function withinMaxQueryParameters(rawQuery: string): boolean {
  let pairs = 1;
  for (let i = rawQuery.indexOf('&'); i >= 0; i = rawQuery.indexOf('&', i + 1)) pairs++;
  return pairs <= MAX_QUERY_PARAMETERS;
}

/** The parts of a URL Go escapes and unescapes differently. */
type Encoding = 'path' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

const HEX_ESCAPE = /^%[0-9A-Fa-f]{2}$/;

function isAlphanumeric(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}

/** Go's shouldEscape: whether a byte is escaped in that part of a URL (every non-ASCII byte is). */
function shouldEscape(byte: number, mode: Encoding): boolean {
  if (isAlphanumeric(byte)) return false;
  const c = String.fromCharCode(byte);
  // A host keeps its sub-delimiters, the `:` of its port, the brackets of an IP literal, and the
  // few characters that no escape could stand for (a host may escape only non-ASCII bytes).
  if ((mode === 'host' || mode === 'zone') && `!$&'()*+,;=:[]<>"`.includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    if (mode === 'path') return c === '?';
    if (mode === 'userPassword') return '@/?:'.includes(c);
    if (mode === 'fragment') return false;
    return true;
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

/**
 * The error Go's unescape gives for the first malformed escape, or undefined. A host may escape
 * only non-ASCII bytes (or `%`) and holds only the ASCII it need not escape; a zone escapes only
 * what it could hold as it is.
 */
function escapeError(text: string, mode: Encoding): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x25) {
      const escape = text.slice(i, i + 3);
      if (!HEX_ESCAPE.test(escape)) return `invalid URL escape ${goQuote(escape)}`;
      const byte = parseInt(escape.slice(1), 16);
      if (mode === 'host' && byte < 0x80 && escape !== '%25') return `invalid URL escape ${goQuote(escape)}`;
      if (mode === 'zone' && escape !== '%25' && byte !== 0x20 && shouldEscape(byte, 'host'))
        return `invalid URL escape ${goQuote(escape)}`;
      i += 2;
    } else if ((mode === 'host' || mode === 'zone') && code < 0x80 && shouldEscape(code, mode)) {
      return `invalid character ${goQuote(text[i])} in host name`;
    }
  }
  return undefined;
}

/** Go's unescape: the text with its `%XX` escapes decoded (and `+` read as a space in a query), or the error. */
function unescape(text: string, mode: Encoding): Unescaped {
  const error = escapeError(text, mode);
  if (error !== undefined) return { error };
  if (!text.includes('%') && !(mode === 'queryComponent' && text.includes('+'))) return { value: text };
  return { value: Buffer.from(unescapedBytes(text, mode)).toString('utf8') };
}

/** The bytes of text whose escapes escapeError found well-formed, decoded. */
function unescapedBytes(text: string, mode: Encoding): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%') {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (text[i] === '+' && mode === 'queryComponent') {
      bytes.push(0x20);
    } else {
      const code = text.codePointAt(i)!;
      if (code > 0xffff) i++;
      bytes.push(...Buffer.from(String.fromCodePoint(code), 'utf8'));
    }
  }
  return Uint8Array.from(bytes);
}

/** Go's escape, for the parts written back here (a path, user information). */
function escape(bytes: Uint8Array, mode: 'path' | 'userPassword'): string {
  let out = '';
  for (const byte of bytes) {
    out += shouldEscape(byte, mode)
      ? `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
      : String.fromCharCode(byte);
  }
  return out;
}

/** Go's validEncoded for a path: no byte it would escape, beyond the sub-delimiters, `:`, `@`, brackets and escapes. */
function validEncodedPath(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (`!$&'()*+,;=:@[]%`.includes(text[i])) continue;
    if (shouldEscape(text.charCodeAt(i), 'path')) return false;
  }
  return true;
}
