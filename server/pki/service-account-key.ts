/**
 * The key pair that signs service-account tokens when the operator names none: made once as
 * `sa.key` in the certificate directory (`--cert-dir`, or `<data-dir>/pki/`) and reused, so tokens outlive restarts and `kubectl create token`
 * works with no flags. Replicas that share the files (or mount the same key through
 * `--service-account-signing-key-file`) sign and verify with one key. Two replicas making it
 * at the same moment agree: the file is linked into place only if absent, and both read the
 * winner back, and so do two callers of one process.
 *
 * An RSA key takes a random 10-100 ms of CPU to make (median about 30 on the project's test
 * machine): it is made on libuv's thread pool, off the event loop, so that a start makes it
 * while it does the rest.
 */
import { generateKeyPair } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const generateRsaKeyPair = promisify(generateKeyPair);

export async function ensureServiceAccountKey(
  dir: string,
): Promise<{ readonly path: string; readonly keyPem: string }> {
  const path = join(dir, 'sa.key');
  if (!existsSync(path)) await makeKey(dir, path);
  return { path, keyPem: readFileSync(path, 'utf8') };
}

async function makeKey(dir: string, path: string): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { privateKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
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
