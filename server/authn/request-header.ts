/**
 * An authenticating proxy (`--requestheader-*`): a request whose client certificate chains to
 * `--requestheader-client-ca-file` (and, when `--requestheader-allowed-names` is set, whose
 * Common Name is listed) is the proxy speaking, and its headers name the user: the first
 * non-empty username header, the uid header, every value of the group headers, and extra keys
 * from the prefixed headers (lowercased, percent-decoded). Without that certificate the
 * headers mean nothing; they are removed from every request either way, so nothing later in
 * the server can mistake them for the proxy's word.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { chainsTo } from './certificate-chain';
import type { AuthenticationResult, Authenticator } from './types';

export interface RequestHeaderOptions {
  readonly cas: readonly X509Certificate[];
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly uidHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

export function requestHeaderAuthenticator(options: RequestHeaderOptions): Authenticator {
  const lower = (names: readonly string[]) => names.map((name) => name.toLowerCase());
  const usernameHeaders = lower(options.usernameHeaders);
  const uidHeaders = lower(options.uidHeaders);
  const groupHeaders = lower(options.groupHeaders);
  const prefixes = lower(options.extraHeaderPrefixes);
  const isProxyHeader = (header: string) =>
    usernameHeaders.includes(header) ||
    uidHeaders.includes(header) ||
    groupHeaders.includes(header) ||
    prefixes.some((prefix) => header.startsWith(prefix));
  const strip = (headers: IncomingHttpHeaders) => {
    for (const header of Object.keys(headers)) if (isProxyHeader(header)) delete headers[header];
  };

  const fromHeaders = (headers: Record<string, string[] | undefined>): AuthenticationResult => {
    const first = (names: readonly string[]) => {
      for (const name of names) {
        const value = headers[name]?.find((candidate) => candidate !== '');
        if (value !== undefined) return value;
      }
      return '';
    };
    const name = first(usernameHeaders);
    if (name === '') return undefined;
    const groups = groupHeaders.flatMap((header) => headers[header] ?? []);
    const extra: Record<string, string[]> = {};
    for (const [header, values] of Object.entries(headers)) {
      const prefix = prefixes.find((candidate) => header.startsWith(candidate));
      if (prefix === undefined || values === undefined) continue;
      const key = unescapeExtraKey(header.slice(prefix.length).toLowerCase());
      (extra[key] ??= []).push(...values);
    }
    const uid = first(uidHeaders);
    return { user: { name, ...(uid === '' ? {} : { uid }), groups, extra } };
  };

  return {
    authenticate(request) {
      const socket = request.socket as TLSSocket;
      const certificate = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
      const presented = certificate !== undefined && Object.keys(certificate).length > 0;
      let result: AuthenticationResult;
      if (!presented) result = undefined;
      else if (!chainsTo(socket, options.cas)) result = { error: 'x509: certificate signed by unknown authority' };
      else {
        const commonName = certificate.subject?.CN;
        const name = Array.isArray(commonName) ? commonName[0] : commonName;
        if (options.allowedNames.length > 0 && !options.allowedNames.includes(name ?? '')) {
          result = { error: `x509: subject with cn=${name ?? ''} is not in the allowed list` };
        } else {
          result = fromHeaders(request.headersDistinct);
        }
      }
      strip(request.headers);
      return result;
    },
  };
}

/**
 * An extra's key from its header name (`X-Remote-Extra-`, `Impersonate-Extra-`), percent-decoded
 * as Go's PathUnescape; a malformed key is kept as sent.
 */
export function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}
