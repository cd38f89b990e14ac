/**
 * The credential-id user extra a client certificate gives its user, worked out from the
 * certificate as kube-apiserver 1.34 does (the SHA-256 of its DER bytes), for tests to expect.
 */
import { createHash, X509Certificate } from 'node:crypto';

export function certificateCredentialId(certificatePem: string | Buffer): Record<string, string[]> {
  const der = new X509Certificate(certificatePem).raw;
  return {
    'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(der).digest('hex')}`],
  };
}
