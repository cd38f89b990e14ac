/**
 * Which CA a verified client certificate chains to. The TLS layer verifies client certificates
 * against every CA the server trusts (the client CA and the proxies' CA); each method must
 * then believe only certificates from its own CA, as the reference verifies each against its
 * own pool. Results are kept per connection, since a connection's certificate cannot change.
 */
import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

export function parseCaBundle(pem: string): X509Certificate[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map(
    (match) => new X509Certificate(match[0]),
  );
}

/** The presented chain, leaf first (the TLS layer fills `issuerCertificate` up to the anchor). */
function presentedChain(socket: TLSSocket): X509Certificate[] {
  const chain: X509Certificate[] = [];
  let current: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  const seen = new Set<string>();
  while (current && current.raw && !seen.has(current.fingerprint256)) {
    seen.add(current.fingerprint256);
    chain.push(new X509Certificate(current.raw));
    current = current.issuerCertificate;
  }
  return chain;
}

/** True when the socket's verified chain ends at (or passes through) one of `cas`. */
export function chainsTo(socket: TLSSocket, cas: readonly X509Certificate[]): boolean {
  if (!socket.authorized) return false;
  return presentedChain(socket).some((cert) =>
    cas.some((ca) => ca.fingerprint256 === cert.fingerprint256 || (cert.checkIssued(ca) && cert.verify(ca.publicKey))),
  );
}
