/**
 * The key pair that signs service-account tokens when the operator names none: made once as
 * `sa.key` in the certificate directory (`--cert-dir`, or `<data-dir>/pki/`) and reused, so tokens outlive restarts and `kubectl create token`
 * works with no flags. Replicas that share the files (or mount the same key through
 * `--service-account-signing-key-file`) sign and verify with one key. Two replicas making it
 * at the same moment agree: the file is linked into place only if absent, and both read the
 * winner back.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function ensureServiceAccountKey(dir: string): { readonly path: string; readonly keyPem: string } {
  const path = join(dir, 'sa.key');
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temporary);
    }
  }
  return { path, keyPem: readFileSync(path, 'utf8') };
}
