/**
 * The AES providers, byte for byte as the reference's: `aescbc` (a random 16-byte IV, then
 * PKCS#7-padded CBC ciphertext) and `aesgcm` (a random 12-byte nonce, then the ciphertext and
 * its 16-byte tag, with the store key as additional data). Failures carry the reference's
 * texts, which reach clients inside the corrupt-object error.
 */
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import type { ReadResult, ValueTransformer, TransformContext } from './transformer';

const BLOCK_SIZE = 16;
const GCM_NONCE_SIZE = 12;
const GCM_TAG_SIZE = 16;

const SHORT_DATA = 'the stored data was shorter than the required size';

function aesAlgorithm(key: Buffer, mode: 'cbc' | 'gcm'): string {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32)
    throw new Error(`crypto/aes: invalid key size ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
}

export function aesCbcTransformer(key: Buffer): ValueTransformer {
  const algorithm = aesAlgorithm(key, 'cbc');
  return {
    async fromStorage(stored: Buffer): Promise<ReadResult> {
      if (stored.length < BLOCK_SIZE) throw new Error(SHORT_DATA);
      const body = stored.subarray(BLOCK_SIZE);
      if (body.length % BLOCK_SIZE !== 0) throw new Error('the stored data is not a multiple of the block size');
      const decipher = createDecipheriv(algorithm, key, stored.subarray(0, BLOCK_SIZE));
      // Padding is checked here, as the reference checks it, so a wrong key fails with its words.
      decipher.setAutoPadding(false);
      const plain = Buffer.concat([decipher.update(body), decipher.final()]);
      const padding = plain.length === 0 ? 0 : plain[plain.length - 1];
      if (padding === 0 || padding > plain.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = plain.length - padding; i < plain.length; i++) {
        if (plain[i] !== padding) throw new Error('invalid padding on input');
      }
      return { data: plain.subarray(0, plain.length - padding), stale: false };
    },
    async toStorage(data: Buffer): Promise<Buffer> {
      const iv = randomBytes(BLOCK_SIZE);
      const cipher = createCipheriv(algorithm, key, iv);
      // Node pads with PKCS#7 by default: a full block when the data is block aligned, as the reference.
      return Buffer.concat([iv, cipher.update(data), cipher.final()]);
    },
  };
}

/** AES-GCM with a random nonce per value and the store key as additional data. */
export function aesGcmTransformer(key: Buffer): ValueTransformer {
  const algorithm = gcmAlgorithm(key);
  return {
    async fromStorage(stored: Buffer, context: TransformContext): Promise<ReadResult> {
      return { data: gcmOpen({ algorithm, key, stored, context }), stale: false };
    },
    async toStorage(data: Buffer, context: TransformContext): Promise<Buffer> {
      return gcmSeal({ algorithm, key, data, context });
    },
  };
}

export function gcmOpen(input: {
  algorithm: CipherGCMTypes;
  key: Buffer;
  stored: Buffer;
  context: TransformContext;
}): Buffer {
  const { algorithm, key, stored, context } = input;
  if (stored.length < GCM_NONCE_SIZE) throw new Error(SHORT_DATA);
  if (stored.length < GCM_NONCE_SIZE + GCM_TAG_SIZE) throw new Error('cipher: message authentication failed');
  const decipher = createDecipheriv(algorithm, key, stored.subarray(0, GCM_NONCE_SIZE), {
    authTagLength: GCM_TAG_SIZE,
  });
  decipher.setAAD(Buffer.from(context.key));
  decipher.setAuthTag(stored.subarray(stored.length - GCM_TAG_SIZE));
  try {
    return Buffer.concat([
      decipher.update(stored.subarray(GCM_NONCE_SIZE, stored.length - GCM_TAG_SIZE)),
      decipher.final(),
    ]);
  } catch {
    throw new Error('cipher: message authentication failed');
  }
}

export function gcmSeal(input: {
  algorithm: CipherGCMTypes;
  key: Buffer;
  data: Buffer;
  context: TransformContext;
}): Buffer {
  const { algorithm, key, data, context } = input;
  const nonce = randomBytes(GCM_NONCE_SIZE);
  const cipher = createCipheriv(algorithm, key, nonce, { authTagLength: GCM_TAG_SIZE });
  cipher.setAAD(Buffer.from(context.key));
  return Buffer.concat([nonce, cipher.update(data), cipher.final(), cipher.getAuthTag()]);
}

export function gcmAlgorithm(key: Buffer): CipherGCMTypes {
  return aesAlgorithm(key, 'gcm') as CipherGCMTypes;
}
