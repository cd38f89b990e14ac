/**
 * The HTTPS server's TLS settings from `--tls-min-version`, `--tls-cipher-suites` and
 * `--tls-sni-cert-key`, turned into Node's (OpenSSL's) terms with the reference's rules:
 *
 * - TLS 1.2 is the floor unless the flag lowers it. OpenSSL 3 refuses TLS 1.0 and 1.1 at its
 *   default security level, where Go serves them when asked; asked for them, the ciphers go to
 *   level 0 so that the versions the operator allowed really handshake.
 * - Cipher suites govern TLS 1.2 and below. Go lets nobody choose TLS 1.3's, so the TLS 1.3
 *   names are accepted and TLS 1.3 keeps its defaults, as in the reference. Without the flag
 *   the suites are Go's defaults (not OpenSSL's, which add DHE and CBC-SHA256/384 ones), and the
 *   server prefers them in Go's order, as Go's server does.
 * - The reference serves HTTP/2 by default, and Go's HTTP/2 server refuses to start when TLS 1.2
 *   may be negotiated with suites that lack an HTTP/2-required one; capstan refuses the same
 *   lists with the same message, so a configuration moves between the two unchanged.
 * - RC4 and 3DES suites, which Go still lists as insecure, are not in Node's OpenSSL: asked for,
 *   capstan says so at start rather than serve without them.
 * - SNI: the client's server name picks a certificate by exact name, then with its first label
 *   as `*`; explicit names win over names taken from a certificate, earlier flags over later
 *   ones; a client without a server name gets the certificate named by the IP it connected to;
 *   no match gets the default certificate.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext, getCiphers, type SecureContext, type SecureContextOptions, type Server } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { isIP, type Socket } from 'node:net';
import { FlagError } from '../config/flags';
import {
  GO_CIPHER_SUITES,
  GO_DEFAULT_CIPHER_SUITES,
  GO_PREFERENCE_ORDER,
  TLS_VERSIONS,
  type NamedCertKey,
  type TlsVersionName,
} from '../config/tls-flags';

const HTTP2_REQUIRED = ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'];

export interface ServingTlsFlags {
  readonly tlsMinVersion?: TlsVersionName;
  readonly tlsCipherSuites: readonly string[];
}

/** OpenSSL's names of the TLS 1.2 suites among Go's names, in Go's order of preference. */
function opensslSuites(names: readonly string[]): string[] {
  const rank = (name: string) => GO_PREFERENCE_ORDER.indexOf(canonicalName(name));
  const available = new Set(getCiphers());
  const suites: string[] = [];
  for (const name of [...names].sort((a, b) => rank(a) - rank(b))) {
    const suite = GO_CIPHER_SUITES[name].openssl;
    if (suite === undefined) continue;
    if (!available.has(suite.toLowerCase()))
      throw new FlagError(
        `--tls-cipher-suites: ${name} (OpenSSL ${suite}) is not available in this server's TLS library`,
      );
    if (!suites.includes(suite)) suites.push(suite);
  }
  return suites;
}

/** The reference's legacy ChaCha20 names stand for Go's current ones. */
function canonicalName(name: string): string {
  return name.endsWith('_CHACHA20_POLY1305') ? `${name}_SHA256` : name;
}

/**
 * `minVersion`, `ciphers` and `honorCipherOrder` for Node's TLS: Go's default suites when none
 * are given, and Go's order of preference over the client's, as Go's server chooses. Throws
 * FlagError for what the reference (or OpenSSL) cannot serve.
 */
export function servingTlsSettings(
  flags: ServingTlsFlags,
): Pick<SecureContextOptions, 'minVersion' | 'ciphers' | 'honorCipherOrder'> {
  const minVersion = TLS_VERSIONS[flags.tlsMinVersion ?? 'VersionTLS12'];
  const given = flags.tlsCipherSuites;
  if (given.length > 0 && minVersion !== 'TLSv1.3' && !given.some((name) => HTTP2_REQUIRED.includes(name))) {
    throw new FlagError(
      'error configuring http2: http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at least one of TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)',
    );
  }
  const suites = opensslSuites(given.length > 0 ? given : GO_DEFAULT_CIPHER_SUITES);
  // Only TLS 1.3 names: TLS 1.2 has no suite left, as in Go; `!ALL` says so to OpenSSL.
  const ciphers = suites.length > 0 ? suites.join(':') : '!ALL';
  const belowTls12 = minVersion === 'TLSv1' || minVersion === 'TLSv1.1';
  return { minVersion, ciphers: belowTls12 ? `${ciphers}@SECLEVEL=0` : ciphers, honorCipherOrder: true };
}

/** A certificate of `--tls-sni-cert-key`, read, with the names it serves and whether they were given. */
export interface SniCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  readonly names: readonly string[];
  readonly explicit: boolean;
}

export function readSniCertificates(entries: readonly NamedCertKey[]): SniCertificate[] {
  return entries.map(({ certFile, keyFile, names }) => {
    const certPem = readFileSync(certFile, 'utf8');
    const keyPem = readFileSync(keyFile, 'utf8');
    return { certPem, keyPem, names: names.length > 0 ? names : certificateNames(certPem), explicit: names.length > 0 };
  });
}

/** DNS-1123 subdomain, as the reference checks the Common Name before using it as a name. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The names the reference takes from a certificate: its Common Name when that is a host name
 * (`*`, or a DNS subdomain after an optional `*.`) and not an IP, then its DNS SANs. IP SANs
 * never, since SNI carries no IPs.
 */
export function certificateNames(certPem: string): string[] {
  const cert = new X509Certificate(certPem);
  const names: string[] = [];
  const cn = /^CN=(.*)$/m.exec(cert.subject)?.[1];
  if (cn !== undefined && isIP(cn) === 0) {
    const bare = cn.startsWith('*.') ? cn.slice(2) : cn;
    if (cn === '*' || (bare.length <= 253 && DNS_SUBDOMAIN.test(bare))) names.push(cn);
  }
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) names.push(entry.slice(4));
  }
  return names;
}

type SniCallback = (servername: string, done: (error: Error | null, context?: SecureContext) => void) => void;

/** What `--tls-sni-cert-key` adds to the HTTPS server: give `callback` as its SNICallback, then `attach` it. */
export interface SniSelection {
  readonly callback: SniCallback;
  /**
   * For clients that send no server name, the reference picks the certificate named by the IP
   * the connection arrived at (names given on the command line may be IPs). Node asks for a
   * context only when a name is sent, so the server's own context is chosen per connection,
   * before its handshake starts, from its local address; with no IP among the names nothing is
   * installed.
   */
  attach(server: TlsServer): void;
}

/**
 * Node's tls.Server, with the one internal this relies on: `_sharedCreds`, the context each new
 * connection takes, read synchronously by the server's own connection listener (Node 22 and 24).
 */
type TlsServer = Server & { _sharedCreds?: SecureContext };

/**
 * The SNI selection over the certificates: each gets a context like the default one (`base`:
 * client CAs, versions, ciphers) with its own certificate and key.
 */
export function sniSelection(
  certificates: readonly SniCertificate[],
  base: SecureContextOptions,
): SniSelection | undefined {
  if (certificates.length === 0) return undefined;
  const byName = new Map<string, SecureContext>();
  const explicit = new Map<string, SecureContext>();
  // Last to first, so that an earlier flag's certificate takes a name a later one also has.
  for (const certificate of [...certificates].reverse()) {
    const context = createSecureContext({ ...base, cert: certificate.certPem, key: certificate.keyPem });
    for (const name of certificate.names) (certificate.explicit ? explicit : byName).set(name, context);
  }
  for (const [name, context] of explicit) byName.set(name, context);
  // The server's own context, for names nothing matches (it may differ from the connection's).
  let fallback: SecureContext | undefined;
  return {
    callback: (servername, done) => {
      const name = servername.toLowerCase();
      let context = byName.get(name);
      if (context === undefined && name !== '') {
        const labels = name.split('.');
        labels[0] = '*';
        context = byName.get(labels.join('.'));
      }
      done(null, context ?? fallback);
    },
    attach(server) {
      fallback = server._sharedCreds;
      const byAddress = new Map([...byName].filter(([name]) => isIP(name) !== 0));
      if (byAddress.size === 0 || fallback === undefined) return;
      const serverContext = fallback;
      server.prependListener('connection', (socket: Socket) => {
        const local = socket.localAddress?.replace(/^::ffff:/, '');
        server._sharedCreds = (local !== undefined && byAddress.get(local)) || serverContext;
      });
    },
  };
}
