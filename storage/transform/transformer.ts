/**
 * Value transformers: what encryption at rest puts between an object's encoded bytes and the
 * store, as the reference's `storage/value` package does. Every value of a resource passes
 * through its resource's transformer on the way in (`toStorage`) and out (`fromStorage`).
 *
 * The etcd key is the context of each call: AES-GCM and KMS v2 authenticate it, so a value
 * copied under another key no longer decrypts, and the metrics name the resource.
 */
import { goAggregate } from '../../api/go-json-syntax';

export interface TransformContext {
  /** The full store key, e.g. `/registry/secrets/default/token`: the authenticated data. */
  readonly key: string;
  /** The resource as the reference's metrics print it: `secrets`, `deployments.apps`. */
  readonly resource: string;
}

export interface ReadResult {
  readonly data: Buffer;
  /**
   * Read with something other than what writes use now (an older key, a later provider): an
   * update must rewrite the value even when the object did not change, which is how a key
   * rotation re-encrypts everything.
   */
  readonly stale: boolean;
}

export interface ValueTransformer {
  fromStorage(data: Buffer, context: TransformContext): Promise<ReadResult>;
  toStorage(data: Buffer, context: TransformContext): Promise<Buffer>;
}

/** A transformer that is tried for values starting with `prefix`, and whose output gets it. */
export interface PrefixedTransformer {
  readonly prefix: Buffer;
  readonly transformer: ValueTransformer;
}

/**
 * Several failures as one, as the reference's error aggregate prints them: the message alone
 * for one, `[a, b]` for more, repeated messages once.
 */
export function aggregateErrors(errors: readonly Error[]): Error {
  if (errors.length === 1) return errors[0];
  return new Error(goAggregate(errors.map((error) => error.message)));
}
