/** What openssl makes for the CSR tests, base64 as a CSR's fields carry it. */
import { execFileSync } from 'node:child_process';

const P256_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: readonly string[]): string {
  return execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'ignore'] }).toString('base64');
}

/**
 * A real PKCS#10 request for a fresh P-256 key, as `spec.request` carries it. `keyFile`: where
 * the key goes, for a test that logs in with the certificate.
 */
export function certificateRequest(options: { subject?: string; keyFile?: string } = {}): string {
  return openssl([
    'req',
    '-new',
    ...P256_KEY,
    '-keyout',
    options.keyFile ?? '/dev/null',
    '-subj',
    options.subject ?? '/CN=alice',
  ]);
}

/** A self-signed certificate of a day for a fresh P-256 key, as `status.certificate` carries it. */
export function selfSignedCertificate(): string {
  return openssl(['req', '-x509', ...P256_KEY, '-keyout', '/dev/null', '-subj', '/CN=x', '-days', '1']);
}
