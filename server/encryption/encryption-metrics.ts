/**
 * The reference's encryption-at-rest metrics, with its names, labels and buckets:
 * `apiserver_storage_transformation_*` for every transformation, and the automatic reload's
 * `apiserver_encryption_config_controller_*`. Registered on the server's registry when a
 * configuration is given, as the reference's appear once its encryption code is in use.
 */
import { createHash } from 'node:crypto';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { TransformationRecorder } from '../../storage/transform/prefix-transformers';
import { grpcStatusLabel } from '../../storage/grpc/unix-client';
import { automaticReloadMetrics } from '../metrics/reload-metrics';

export interface EncryptionMetrics {
  readonly recordTransformation: TransformationRecorder;
  recordReload(status: 'success' | 'failure'): void;
  /** The hash of the configuration in effect (`..._last_config_info`). */
  setConfigHash(contentHash: string): void;
}

/** Go's `ExponentialBuckets(start, factor, count)`. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

export function hashOf(text: string): string {
  return text === '' ? '' : `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

export function createEncryptionMetrics(registry: Registry, serverId: string): EncryptionMetrics {
  const registers = [registry];
  const durations = new Histogram({
    name: 'apiserver_storage_transformation_duration_seconds',
    help: 'Latencies in seconds of value transformation operations.',
    labelNames: ['transformation_type', 'transformer_prefix'],
    buckets: exponentialBuckets(5e-6, 2, 25),
    registers,
  });
  const operations = new Counter({
    name: 'apiserver_storage_transformation_operations_total',
    help: "Total number of transformations. Successful transformation will have a status 'OK' and a varied status string when the transformation fails. The status, resource, and transformation_type fields can be used for alerting purposes. For example, you can monitor for encryption/decryption failures using the transformation_type (e.g., from_storage for decryption and to_storage for encryption). Additionally, these fields can be used to ensure that the correct transformers are applied to each resource.",
    labelNames: ['resource', 'transformation_type', 'transformer_prefix', 'status'],
    registers,
  });
  const idHash = hashOf(serverId);
  const recordReload = automaticReloadMetrics({
    config: 'encryption_config',
    reloadsHelp:
      'Total number of reload successes and failures of encryption configuration split by apiserver identity.',
    lastTimestampHelp:
      'Timestamp of the last successful or failed automatic reload of encryption configuration split by apiserver identity.',
    apiserverIdHash: idHash,
    registers,
  });
  const lastConfig = new Gauge({
    name: 'apiserver_encryption_config_controller_last_config_info',
    help: 'Information about the last applied encryption configuration with hash as label, split by apiserver identity.',
    labelNames: ['apiserver_id_hash', 'hash'],
    registers,
  });
  return {
    recordTransformation({ resource, type, prefix, seconds, error }) {
      operations.inc({
        resource,
        transformation_type: type,
        transformer_prefix: prefix,
        status: grpcStatusLabel(error),
      });
      if (error === undefined) durations.observe({ transformation_type: type, transformer_prefix: prefix }, seconds);
    },
    recordReload,
    setConfigHash(contentHash) {
      // One series: the configuration in effect now.
      lastConfig.reset();
      lastConfig.set({ apiserver_id_hash: idHash, hash: contentHash }, 1);
    },
  };
}
