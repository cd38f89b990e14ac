/**
 * The Kubernetes URL library: `url(string)`, `isURL(string)` and the accessors getScheme,
 * getHost, getHostname, getPort, getEscapedPath, getQuery. A URL is what Go's
 * `url.ParseRequestURI` accepts (an absolute URL or an absolute path); its parts are what Go's
 * `url.Parse` gives, which is how the reference reads them.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { traversalCost } from '../runtime-cost';
import { CelFunctionError, type CelLibrary } from './library';

export class CelURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    /** The path as written (still escaped). */
    readonly rawPath: string,
    readonly rawQuery: string,
  ) {}
}

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*$/;
const VALID_PORT = /^(:\d*)?$/;

/** The URL `text` denotes, or the reason Go's ParseRequestURI gives for refusing it. */
export function parseRequestURI(text: string): CelURL | string {
  if (/[\x00-\x1f\x7f]/.test(text)) return 'invalid control character in URL';
  if (text === '') return 'empty url';
  let rest = text;
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  let scheme = '';
  const colon = rest.indexOf(':');
  const slash = rest.indexOf('/');
  if (colon > 0 && (slash < 0 || colon < slash)) {
    scheme = rest.slice(0, colon);
    if (!SCHEME.test(scheme)) return 'first path segment in URL cannot contain colon';
    rest = rest.slice(colon + 1);
  } else if (colon === 0) {
    return 'missing protocol scheme';
  }
  let rawQuery = '';
  const question = rest.indexOf('?');
  if (question >= 0) {
    rawQuery = rest.slice(question + 1);
    rest = rest.slice(0, question);
  }
  if (!rest.startsWith('/')) return 'invalid URI for request';
  let host = '';
  if (rest.startsWith('//') && scheme !== '') {
    const end = rest.indexOf('/', 2);
    host = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '' : rest.slice(end);
    const at = host.lastIndexOf('@');
    const hostPort = at >= 0 ? host.slice(at + 1) : host;
    if (hostPort.startsWith('[')) {
      const close = hostPort.indexOf(']');
      if (close < 0) return "missing ']' in host";
      if (!VALID_PORT.test(hostPort.slice(close + 1))) return `invalid port "${hostPort.slice(close + 1)}" after host`;
    } else {
      const portColon = hostPort.indexOf(':');
      if (portColon >= 0 && !VALID_PORT.test(hostPort.slice(portColon))) {
        return `invalid port "${hostPort.slice(portColon)}" after host`;
      }
      if (/[\s<>"{}|\\^`]/.test(hostPort))
        return `invalid character "${/[\s<>"{}|\\^`]/.exec(hostPort)![0]}" in host name`;
    }
    host = hostPort;
  }
  return new CelURL(scheme.toLowerCase(), host, rest, rawQuery);
}

function toURL(text: string): CelURL {
  const parsed = parseRequestURI(text);
  if (typeof parsed === 'string') {
    throw new CelFunctionError(`URL parse error during conversion from string: parse "${text}": ${parsed}`);
  }
  return parsed;
}

function hostname(url: CelURL): string {
  const host = url.host;
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function port(url: CelURL): string {
  const host = url.host;
  const afterBracket = host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host;
  const colon = afterBracket.indexOf(':');
  return colon < 0 ? '' : afterBracket.slice(colon + 1);
}

// Go's validEncoded: the characters a path may hold unescaped.
const VALID_ENCODED_PATH = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/[\]]|%[0-9A-Fa-f]{2})*$/;

function unescapePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Go's EscapedPath: the path as written when that is a valid encoding, else Go's escaping of it. */
function escapedPath(url: CelURL): string {
  if (VALID_ENCODED_PATH.test(url.rawPath)) return url.rawPath;
  let out = '';
  for (const byte of Buffer.from(unescapePath(url.rawPath), 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~$&+,/:;=@]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's url.ParseQuery, keeping what parses: key to values in order. */
function query(url: CelURL): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const pair of url.rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
      value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    } catch {
      continue;
    }
    result.set(key, [...(result.get(key) ?? []), value]);
  }
  return result;
}

export const urlsLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerType('kubernetes.URL', CelURL)
      .registerFunction('url(string): kubernetes.URL', toURL)
      .registerFunction('isURL(string): bool', (text: string) => typeof parseRequestURI(text) !== 'string')
      .registerFunction('kubernetes.URL.getScheme(): string', (url: CelURL) => url.scheme)
      .registerFunction('kubernetes.URL.getHost(): string', (url: CelURL) => url.host)
      .registerFunction('kubernetes.URL.getHostname(): string', hostname)
      .registerFunction('kubernetes.URL.getPort(): string', port)
      .registerFunction('kubernetes.URL.getEscapedPath(): string', escapedPath)
      .registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', query);
  },
  // As the reference prices them: url() traverses its string; isURL has no price of its own (1).
  costs: {
    url: ([text]) => traversalCost(text),
  },
};
