/**
 * The KMS v1 envelope, byte for byte as the reference's (apiserver's envelope package): after
 * `k8s:enc:kms:v1:<name>:` a value holds the length of its encrypted DEK (2 bytes, big endian),
 * the encrypted DEK, then the data sealed with that DEK.
 *
 * Every write makes a new 32-byte DEK and has the plugin encrypt it (Encrypt per write, as
 * there); the data is sealed with AES-256-GCM under it, the store key as additional data. Reads
 * try AES-GCM, then AES-CBC (what servers before 1.25 wrote), a CBC read being stale so an
 * update rewrites it. Decrypted DEKs are kept in a least-recently-used cache of `cacheSize`
 * entries keyed by their encrypted form (none when the size is not positive), so a value whose
 * DEK is cached is read without asking the plugin; the DEKs of this server's writes join it.
 */
import { randomBytes } from 'node:crypto';
import { aesCbcTransformer, aesGcmTransformer } from '../aes';
import { aggregateErrors, type ReadResult, type TransformContext, type ValueTransformer } from '../transformer';
import type { EnvelopeService } from './kms-v1-service';

const DEK_SIZE = 32;
/** The encrypted DEK's length is a uint16. */
const MAX_ENCRYPTED_DEK_SIZE = 0xffff;

/** What the envelope reports for the reference's metrics. */
export interface EnvelopeV1Observer {
  /** A transformation began (`apiserver_envelope_encryption_dek_cache_inter_arrival_time_seconds`). */
  arrival(type: 'from_storage' | 'to_storage'): void;
  cacheMiss(): void;
  /** `apiserver_envelope_encryption_dek_cache_fill_percent`, a fraction of 1. */
  cacheFill(fraction: number): void;
  /** A DEK was generated in this many seconds. */
  dataKeyGenerated(seconds: number): void;
}

export function envelopeV1Transformer(options: {
  service: EnvelopeService;
  /** Not positive: no cache, every read asks the plugin. */
  cacheSize: number;
  observer: EnvelopeV1Observer;
}): ValueTransformer {
  const { service, cacheSize, observer } = options;
  const cacheEnabled = cacheSize > 0;
  // Insertion order is use order: a hit is re-inserted, the first entry is the least recently used.
  const cache = new Map<string, ValueTransformer>();

  const remember = (encryptedKey: Buffer, key: Buffer): ValueTransformer => {
    const transformer = dekTransformer(key);
    if (cacheEnabled) {
      const id = encryptedKey.toString('base64');
      cache.delete(id);
      cache.set(id, transformer);
      if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
      observer.cacheFill(cache.size / cacheSize);
    }
    return transformer;
  };

  const cached = (encryptedKey: Buffer): ValueTransformer | undefined => {
    if (!cacheEnabled) return undefined;
    const id = encryptedKey.toString('base64');
    const transformer = cache.get(id);
    if (transformer !== undefined) {
      cache.delete(id);
      cache.set(id, transformer);
    }
    return transformer;
  };

  return {
    async fromStorage(data: Buffer, context: TransformContext): Promise<ReadResult> {
      observer.arrival('from_storage');
      const keyLength = data.length < 2 ? -1 : data.readUInt16BE(0);
      if (keyLength < 0 || data.length < 2 + keyLength)
        throw new Error('invalid data encountered by envelope transformer: failed to read uint16 length prefixed data');
      const encryptedKey = data.subarray(2, 2 + keyLength);
      let transformer = cached(encryptedKey);
      if (transformer === undefined) {
        if (cacheEnabled) observer.cacheMiss();
        // The plugin's error as it is: its gRPC code labels the transformation metric.
        transformer = remember(encryptedKey, await service.decrypt(encryptedKey));
      }
      return transformer.fromStorage(data.subarray(2 + keyLength), context);
    },
    async toStorage(data: Buffer, context: TransformContext): Promise<Buffer> {
      observer.arrival('to_storage');
      const startedAt = performance.now();
      const key = randomBytes(DEK_SIZE);
      observer.dataKeyGenerated((performance.now() - startedAt) / 1000);
      const encryptedKey = await service.encrypt(key);
      const sealed = await remember(encryptedKey, key).toStorage(data, context);
      if (encryptedKey.length > MAX_ENCRYPTED_DEK_SIZE)
        throw new Error(`cryptobyte: pending child length ${encryptedKey.length} exceeds 2-byte length prefix`);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(encryptedKey.length);
      return Buffer.concat([length, encryptedKey, sealed]);
    },
  };
}

/** One DEK's transformer: writes AES-GCM; reads AES-GCM, else AES-CBC (stale), else both failures. */
function dekTransformer(key: Buffer): ValueTransformer {
  const gcm = aesGcmTransformer(key);
  const cbc = aesCbcTransformer(key);
  return {
    async fromStorage(data, context) {
      const errors: Error[] = [];
      for (const [index, transformer] of [gcm, cbc].entries()) {
        try {
          const result = await transformer.fromStorage(data, context);
          return { data: result.data, stale: result.stale || index !== 0 };
        } catch (error) {
          errors.push(error as Error);
        }
      }
      throw aggregateErrors(errors);
    },
    toStorage: (data, context) => gcm.toStorage(data, context),
  };
}
