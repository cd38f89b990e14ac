/**
 * The identity provider, and what every resource the configuration does not name gets: values
 * pass unchanged, but an encrypted one (`k8s:enc:`) is refused rather than handed to the
 * decoder as if it were an object, as the reference's encrypt-check transformer does.
 */
import type { ReadResult, ValueTransformer } from './transformer';

const ENCRYPTED_PREFIX = Buffer.from('k8s:enc:');

export const IDENTITY_TRANSFORMER: ValueTransformer = {
  async fromStorage(data: Buffer): Promise<ReadResult> {
    if (
      data.length >= ENCRYPTED_PREFIX.length &&
      data.compare(ENCRYPTED_PREFIX, 0, ENCRYPTED_PREFIX.length, 0, ENCRYPTED_PREFIX.length) === 0
    ) {
      throw new Error('identity transformer tried to read encrypted data');
    }
    return { data, stale: false };
  },
  async toStorage(data: Buffer): Promise<Buffer> {
    return data;
  },
};
