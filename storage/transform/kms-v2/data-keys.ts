/**
 * The data keys of KMS v2 values. Since 1.29 a DEK source is a 32-byte seed: each value gets
 * 32 random bytes (`info`, stored first) and is sealed with AES-256-GCM under
 * HKDF-SHA256-Expand(seed, info), a random 12-byte nonce and the store key as additional data,
 * so a seed can seal any number of values without nonce reuse. Values of older servers were
 * sealed with the DEK itself (AES-GCM, nonce first); they are still read.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { gcmAlgorithm, gcmOpen, gcmSeal } from '../aes';
import type { TransformContext } from '../transformer';

export const SEED_SIZE = 32;
const INFO_SIZE = 32;

export interface DataKey {
  open(stored: Buffer, context: TransformContext): Buffer;
}

/** HKDF-Expand alone (RFC 5869 §2.3), one block: the seed is already uniformly random, so no extract step, as the reference. */
function expand(seed: Buffer, info: Buffer): Buffer {
  return createHmac('sha256', seed).update(info).update(Buffer.of(1)).digest();
}

export function seedKey(seed: Buffer): DataKey & { seal(data: Buffer, context: TransformContext): Buffer } {
  if (seed.length < SEED_SIZE) throw new Error(`invalid seed length ${seed.length} used for key generation`);
  return {
    open(stored, context) {
      if (stored.length < INFO_SIZE) throw new Error('the stored data was shorter than the required size');
      const key = expand(seed, stored.subarray(0, INFO_SIZE));
      return gcmOpen({ algorithm: 'aes-256-gcm', key, stored: stored.subarray(INFO_SIZE), context });
    },
    seal(data, context) {
      const info = randomBytes(INFO_SIZE);
      const key = expand(seed, info);
      return Buffer.concat([info, gcmSeal({ algorithm: 'aes-256-gcm', key, data, context })]);
    },
  };
}

export function plainGcmKey(key: Buffer): DataKey {
  const algorithm = gcmAlgorithm(key);
  return { open: (stored, context) => gcmOpen({ algorithm, key, stored, context }) };
}
