/**
 * The reference's prefix transformer list: writes use the first entry and prepend its prefix;
 * reads try every entry whose prefix the value starts with, in order, so one provider's failure
 * (an old key under a shared `k8s:enc:aescbc:v1:` prefix) does not hide a later match. A value
 * read by any entry but the first is stale. An entry with an empty prefix (identity) that
 * fails is skipped silently: it fails on every encrypted value by design.
 *
 * Every attempt is counted in `apiserver_storage_transformation_*` under its prefix, as the
 * reference records them (nested lists record at each level).
 */
import {
  aggregateErrors,
  type PrefixedTransformer,
  type ReadResult,
  type TransformContext,
  type ValueTransformer,
} from './transformer';

export type TransformationType = 'from_storage' | 'to_storage';

export interface TransformationRecord {
  readonly resource: string;
  readonly type: TransformationType;
  /** The entry's prefix as text; `identity` for the empty one, `unknown` when nothing matched. */
  readonly prefix: string;
  readonly seconds: number;
  readonly error?: Error;
}

export type TransformationRecorder = (record: TransformationRecord) => void;

export class PrefixTransformers implements ValueTransformer {
  constructor(
    private readonly entries: readonly PrefixedTransformer[],
    /** What a value no entry matches fails with. */
    private readonly noMatch: Error,
    private readonly record: TransformationRecorder,
  ) {}

  async fromStorage(data: Buffer, context: TransformContext): Promise<ReadResult> {
    const startedAt = performance.now();
    const errors: Error[] = [];
    for (let index = 0; index < this.entries.length; index++) {
      const { prefix, transformer } = this.entries[index];
      if (!startsWith(data, prefix)) continue;
      let result: ReadResult | undefined;
      let failure: Error | undefined;
      try {
        result = await transformer.fromStorage(data.subarray(prefix.length), context);
      } catch (error) {
        failure = error as Error;
      }
      if (prefix.length === 0 && failure !== undefined) continue;
      this.record({
        resource: context.resource,
        type: 'from_storage',
        prefix: prefix.length === 0 ? 'identity' : prefix.toString('latin1'),
        seconds: elapsedSince(startedAt),
        error: failure,
      });
      if (failure !== undefined) {
        errors.push(failure);
        continue;
      }
      return { data: result!.data, stale: result!.stale || index !== 0 };
    }
    if (errors.length > 0) throw aggregateErrors(errors);
    this.record({
      resource: context.resource,
      type: 'from_storage',
      prefix: 'unknown',
      seconds: elapsedSince(startedAt),
      error: this.noMatch,
    });
    throw this.noMatch;
  }

  async toStorage(data: Buffer, context: TransformContext): Promise<Buffer> {
    const startedAt = performance.now();
    const { prefix, transformer } = this.entries[0];
    let result: Buffer;
    try {
      result = await transformer.toStorage(data, context);
    } catch (error) {
      this.record({
        resource: context.resource,
        type: 'to_storage',
        prefix: prefix.toString('latin1'),
        seconds: elapsedSince(startedAt),
        error: error as Error,
      });
      throw error;
    }
    this.record({
      resource: context.resource,
      type: 'to_storage',
      prefix: prefix.toString('latin1'),
      seconds: elapsedSince(startedAt),
    });
    return Buffer.concat([prefix, result]);
  }
}

function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

function elapsedSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
