/**
 * The serving TLS flags as kube-apiserver 1.34 reads them: `--tls-min-version` (Go's version
 * names), `--tls-cipher-suites` (Go's cipher suite names, secure and insecure alike) and
 * `--tls-sni-cert-key` (`cert,key[:name,...]`, repeated), with the reference's messages. Node's
 * TLS is OpenSSL, so each Go name carries OpenSSL's name for the same suite.
 */

export type TlsVersionName = 'VersionTLS10' | 'VersionTLS11' | 'VersionTLS12' | 'VersionTLS13';

/** Go's version names and Node's (`minVersion`). */
export const TLS_VERSIONS: Readonly<Record<TlsVersionName, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

export function tlsVersionName(value: string): TlsVersionName {
  if (!Object.hasOwn(TLS_VERSIONS, value)) throw new Error(`unknown tls version ${JSON.stringify(value)}`);
  return value as TlsVersionName;
}

/**
 * Every name Go's crypto/tls lists (CipherSuites and InsecureCipherSuites, as the reference
 * builds its table), with OpenSSL's name; TLS 1.3's suites have none, since Go (and so the
 * reference) lets nobody choose them: they are accepted and leave TLS 1.3 as it is.
 */
export const GO_CIPHER_SUITES: Readonly<Record<string, { readonly openssl?: string; readonly insecure?: true }>> = {
  TLS_AES_128_GCM_SHA256: {},
  TLS_AES_256_GCM_SHA384: {},
  TLS_CHACHA20_POLY1305_SHA256: {},
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: { openssl: 'ECDHE-ECDSA-AES128-SHA' },
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: { openssl: 'ECDHE-ECDSA-AES256-SHA' },
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: { openssl: 'ECDHE-RSA-AES128-SHA' },
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: { openssl: 'ECDHE-RSA-AES256-SHA' },
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: { openssl: 'ECDHE-ECDSA-AES128-GCM-SHA256' },
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: { openssl: 'ECDHE-ECDSA-AES256-GCM-SHA384' },
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: { openssl: 'ECDHE-RSA-AES128-GCM-SHA256' },
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: { openssl: 'ECDHE-RSA-AES256-GCM-SHA384' },
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: { openssl: 'ECDHE-RSA-CHACHA20-POLY1305' },
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: { openssl: 'ECDHE-ECDSA-CHACHA20-POLY1305' },
  // The reference keeps the names Go used before 1.14.
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: { openssl: 'ECDHE-RSA-CHACHA20-POLY1305' },
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: { openssl: 'ECDHE-ECDSA-CHACHA20-POLY1305' },
  TLS_RSA_WITH_RC4_128_SHA: { openssl: 'RC4-SHA', insecure: true },
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: { openssl: 'DES-CBC3-SHA', insecure: true },
  TLS_RSA_WITH_AES_128_CBC_SHA: { openssl: 'AES128-SHA', insecure: true },
  TLS_RSA_WITH_AES_256_CBC_SHA: { openssl: 'AES256-SHA', insecure: true },
  TLS_RSA_WITH_AES_128_CBC_SHA256: { openssl: 'AES128-SHA256', insecure: true },
  TLS_RSA_WITH_AES_128_GCM_SHA256: { openssl: 'AES128-GCM-SHA256', insecure: true },
  TLS_RSA_WITH_AES_256_GCM_SHA384: { openssl: 'AES256-GCM-SHA384', insecure: true },
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: { openssl: 'ECDHE-ECDSA-RC4-SHA', insecure: true },
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: { openssl: 'ECDHE-RSA-RC4-SHA', insecure: true },
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: { openssl: 'ECDHE-RSA-DES-CBC3-SHA', insecure: true },
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: { openssl: 'ECDHE-ECDSA-AES128-SHA256', insecure: true },
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: { openssl: 'ECDHE-RSA-AES128-SHA256', insecure: true },
};

/**
 * Go's order of preference, which its server follows whatever order the list gives (the
 * client's order counts only among suites Go ranks alike), and the suites it serves when no
 * list is given: the ECDHE ones with AES-GCM, ChaCha20 and AES-CBC-SHA.
 */
export const GO_PREFERENCE_ORDER: readonly string[] = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
  'TLS_RSA_WITH_RC4_128_SHA',
];
export const GO_DEFAULT_CIPHER_SUITES: readonly string[] = GO_PREFERENCE_ORDER.slice(0, 10);

/** The names as given, once each is known to Go (the reference's message otherwise). */
export function checkCipherSuiteNames(names: readonly string[]): string[] {
  for (const name of names) {
    if (!Object.hasOwn(GO_CIPHER_SUITES, name)) throw new Error(`Cipher suite ${name} not supported or doesn't exist`);
  }
  return [...names];
}

/** One `--tls-sni-cert-key` value: the files, and the names it serves (empty: the certificate's own). */
export interface NamedCertKey {
  readonly certFile: string;
  readonly keyFile: string;
  readonly names: readonly string[];
}

export function parseNamedCertKey(value: string): NamedCertKey {
  const colon = value.indexOf(':');
  let names: string[] = [];
  let certKey = value.trim();
  if (colon >= 0) {
    certKey = value.slice(0, colon).trim();
    const list = value.slice(colon + 1).trim();
    if (list === '') throw new Error('empty names list is not allowed');
    names = list.split(',').map((name) => name.trim());
  }
  const files = certKey.split(',');
  if (files.length !== 2) throw new Error('expected comma separated certificate and key file paths');
  return { certFile: files[0].trim(), keyFile: files[1].trim(), names };
}

/** The insecure names among those given, which the reference warns about at start. */
export function insecureCipherSuites(names: readonly string[]): string[] {
  return names.filter((name) => GO_CIPHER_SUITES[name]?.insecure === true);
}
