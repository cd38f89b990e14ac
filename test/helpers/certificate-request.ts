/**
 * A real PKCS#10 request made by openssl for a fresh P-256 key, base64 as a CSR's `spec.request`
 * carries it. `keyFile`: where the key goes, for a test that logs in with the certificate.
 */
import { execFileSync } from 'node:child_process';

export function certificateRequest(options: { subject?: string; keyFile?: string } = {}): string {
  const pem = execFileSync(
    'openssl',
    [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      options.keyFile ?? '/dev/null',
      '-subj',
      options.subject ?? '/CN=alice',
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  return pem.toString('base64');
}
