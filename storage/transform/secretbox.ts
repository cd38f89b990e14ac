/**
 * The secretbox provider: NaCl's XSalsa20-Poly1305 with a random 24-byte nonce stored before
 * the box, as the reference's. Node's crypto has no XSalsa20, so the audited `tweetnacl` does
 * the sealing; it is loaded only when a configuration names secretbox.
 */
import { randomBytes } from 'node:crypto';
import type { ReadResult, ValueTransformer } from './transformer';

const NONCE_SIZE = 24;
const OVERHEAD = 16;

interface SecretboxLibrary {
  secretbox: ((message: Uint8Array, nonce: Uint8Array, key: Uint8Array) => Uint8Array) & {
    open(box: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array | null;
  };
}

let library: SecretboxLibrary | undefined;

function nacl(): SecretboxLibrary {
  library ??= require('tweetnacl') as SecretboxLibrary;
  return library;
}

export function secretboxTransformer(key: Buffer): ValueTransformer {
  if (key.length !== 32) throw new Error(`expected key size 32 for secretbox provider, got ${key.length}`);
  const { secretbox } = nacl();
  return {
    async fromStorage(stored: Buffer): Promise<ReadResult> {
      if (stored.length < OVERHEAD + NONCE_SIZE) throw new Error('the stored data was shorter than the required size');
      const opened = secretbox.open(stored.subarray(NONCE_SIZE), stored.subarray(0, NONCE_SIZE), key);
      // The reference's text for a box that does not open (a wrong key), odd as it reads.
      if (opened === null) throw new Error('output array was not large enough for encryption');
      return { data: Buffer.from(opened.buffer, opened.byteOffset, opened.byteLength), stale: false };
    },
    async toStorage(data: Buffer): Promise<Buffer> {
      const nonce = randomBytes(NONCE_SIZE);
      return Buffer.concat([nonce, secretbox(data, nonce, key)]);
    },
  };
}
