import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServiceAccountKey } from '../../../server/pki/service-account-key';

describe('ensureServiceAccountKey', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-sa-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes an RSA key once, readable only by its owner, and reuses it', async () => {
    const first = await ensureServiceAccountKey(join(dir, 'pki'));
    const key = createPrivateKey(first.keyPem);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(first.path).toBe(join(dir, 'pki', 'sa.key'));
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    expect((await ensureServiceAccountKey(join(dir, 'pki'))).keyPem).toBe(first.keyPem);
    expect(readdirSync(join(dir, 'pki'))).toEqual(['sa.key']);
  });

  it('makes the key without holding the event loop', async () => {
    const order: string[] = [];
    const made = ensureServiceAccountKey(dir).then(() => order.push('key'));
    setImmediate(() => order.push('immediate'));
    await made;
    expect(order).toEqual(['immediate', 'key']);
  });

  it('gives callers that ask while it is being made the one key', async () => {
    const [a, b] = await Promise.all([ensureServiceAccountKey(dir), ensureServiceAccountKey(dir)]);
    expect(b.keyPem).toBe(a.keyPem);
    expect(readdirSync(dir)).toEqual(['sa.key']);
  });
});
