/**
 * The parts of a URL as Go's `url.Parse` reads it (the Go 1.26 the reference is built with), or
 * the error it gives: the reference checks webhook URLs on what it finds there, and its messages
 * quote Go's errors. WHATWG's URL (Node's) reads many strings differently (a missing scheme, a
 * space in a host, an empty user), so it cannot stand in.
 */
import { isIPv6 } from 'node:net';
import { goQuote } from '../go-quote';

export interface GoURL {
  /** Lower-cased, as Go keeps it. */
  readonly scheme: string;
  /** As written (escapes kept). */
  readonly host: string;
  /** The user information as written (Go's `User.String()` for what parses), or undefined without an `@`. */
  readonly user: string | undefined;
  readonly rawQuery: string;
  /** Unescaped. */
  readonly fragment: string;
}

/** Go's `url.Parse`: the URL, or its error text (`parse "<url>": <reason>`). */
export function parseGoURL(raw: string): GoURL | { readonly error: string } {
  const hash = raw.indexOf('#');
  const beforeFragment = hash < 0 ? raw : raw.slice(0, hash);
  const parsed = parseWithoutFragment(beforeFragment);
  if (typeof parsed === 'string') return { error: `parse ${goQuote(beforeFragment)}: ${parsed}` };
  if (hash < 0) return { ...parsed, fragment: '' };
  const fragment = unescape(raw.slice(hash + 1), 'fragment');
  if (fragment.error !== undefined) return { error: `parse ${goQuote(raw)}: ${fragment.error}` };
  return { ...parsed, fragment: fragment.value };
}

type WithoutFragment = Omit<GoURL, 'fragment'>;

function parseWithoutFragment(raw: string): WithoutFragment | string {
  if (/[\x00-\x1f\x7f]/.test(raw)) return 'net/url: invalid control character in URL';
  const empty = { scheme: '', host: '', user: undefined, rawQuery: '' };
  if (raw === '*') return empty;
  const scheme = schemeOf(raw);
  if (typeof scheme !== 'string') return scheme.error;
  let rest = scheme === '' ? raw : raw.slice(scheme.length + 1);
  let rawQuery = '';
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else {
    const question = rest.indexOf('?');
    if (question >= 0) [rest, rawQuery] = [rest.slice(0, question), rest.slice(question + 1)];
  }
  const lowerScheme = scheme.toLowerCase();
  if (!rest.startsWith('/')) {
    // Go keeps the rest as an opaque part: no host.
    if (scheme !== '') return { ...empty, scheme: lowerScheme, rawQuery };
    if (rest.split('/')[0].includes(':')) return 'first path segment in URL cannot contain colon';
  }
  let host = '';
  let user: string | undefined;
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    const parsedHost = parseHost(lowerScheme, at < 0 ? authority : authority.slice(at + 1));
    if (parsedHost.error !== undefined) return parsedHost.error;
    host = parsedHost.value;
    if (at >= 0) {
      user = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(user)) return 'net/url: invalid userinfo';
      const colon = user.indexOf(':');
      for (const part of colon < 0 ? [user] : [user.slice(0, colon), user.slice(colon + 1)]) {
        const unescaped = unescape(part, 'userinfo');
        if (unescaped.error !== undefined) return unescaped.error;
      }
    }
  }
  const path = unescape(rest, 'path');
  if (path.error !== undefined) return path.error;
  return { scheme: lowerScheme, host, user, rawQuery };
}

/** Go's getScheme: the scheme before the first colon, '' when there is none, or its error. */
function schemeOf(raw: string): string | { readonly error: string } {
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

type Unescaped = { readonly value: string; readonly error?: undefined } | { readonly error: string };

/** Go's parseHost: an IP literal in brackets, or a name with an optional numeric port. */
function parseHost(scheme: string, host: string): Unescaped {
  const open = host.lastIndexOf('[');
  if (open > 0) return { error: 'invalid IP-literal' };
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) return { error: "missing ']' in host" };
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) return { error: `invalid port ${goQuote(colonPort)} after host` };
    const hostname = unescape(host.slice(1, close).split('%25')[0], 'host');
    if (hostname.error !== undefined) return hostname;
    if (!isIPv6(hostname.value))
      return { error: `invalid host: ParseAddr(${goQuote(hostname.value)}): unable to parse IP` };
    return { value: host };
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

/** The ASCII characters Go's host encoding keeps as they are. */
const HOST_CHARACTERS = /[A-Za-z0-9!"$&'()*+,\-.:;<=>[\]_~]/;

/** Go's unescape: well-formed escapes only; a host allows escapes of non-ASCII bytes alone, and its own characters. */
function unescape(text: string, mode: 'host' | 'userinfo' | 'path' | 'fragment'): Unescaped {
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === '%') {
      if (!/^%[0-9A-Fa-f]{2}/.test(text.slice(i, i + 3)))
        return { error: `invalid URL escape ${goQuote(text.slice(i, i + 3))}` };
      if (mode === 'host' && parseInt(text[i + 1], 16) < 8 && text.slice(i, i + 3) !== '%25')
        return { error: `invalid URL escape ${goQuote(text.slice(i, i + 3))}` };
      i += 3;
      continue;
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && !HOST_CHARACTERS.test(c))
      return { error: `invalid character ${goQuote(c)} in host name` };
    i++;
  }
  return { value: text };
}
