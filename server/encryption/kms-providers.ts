/**
 * The KMS v2 providers of one configuration: each `kms` entry becomes a provider with its own
 * plugin connection and probe (storage/transform/kms-v2), and together they answer the
 * `kms-providers` health check, naming each failing one `kms-provider-<n>` as the reference.
 * Also the reference's `apiserver_envelope_encryption_*` metrics; they are registered once per
 * registry, since a reload builds a new set of providers.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { KmsV2Provider, type EnvelopeObserver } from '../../storage/transform/kms-v2/kms-v2-provider';
import type { PrefixedTransformer } from '../../storage/transform/transformer';
import { EncryptionConfigError } from './config-error';
import { kmsSocketPath, type KmsConfiguration } from './encryption-config';
import { exponentialBuckets, hashOf } from './encryption-metrics';

export interface KmsProviders {
  /** Builds the entry of a `kms` provider of the configuration. */
  provider(config: KmsConfiguration): PrefixedTransformer;
  /** Resolves once every provider has probed its plugin once, healthy or not. */
  primed(): Promise<void>;
  /** Fails while any plugin is unhealthy. */
  check(): Promise<void>;
  readonly count: number;
  /** The sum of the providers' timeouts: how long a reload waits for them, and the old ones linger. */
  readonly timeoutSumMs: number;
  close(): void;
}

export function kmsProviders(options: {
  registry: Registry;
  serverId: string;
  /** The KMSv1 gate: a v1 provider is refused either way, with the reference's text when off. */
  kmsV1Enabled: boolean;
  log?: (message: string) => void;
}): KmsProviders {
  const providers: KmsV2Provider[] = [];
  const observer = envelopeObserver(options.registry, options.serverId);
  const log = options.log ?? ((message: string) => console.error(message));
  let timeoutSumMs = 0;
  return {
    provider(config) {
      if (config.apiVersion !== 'v2') {
        // capstan has no KMS v1 envelope: with the gate on, where the reference would serve one,
        // the start stops all the same, saying why.
        throw new EncryptionConfigError(
          options.kmsV1Enabled
            ? `error while building transformers: KMS provider ${JSON.stringify(config.name)}: capstan does not implement KMSv1 (apiVersion v1); use KMSv2 (apiVersion: v2)`
            : 'error while building transformers: KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.',
        );
      }
      const provider = new KmsV2Provider({
        name: config.name,
        socketPath: kmsSocketPath(config.endpoint),
        timeoutMs: config.timeoutMs,
        observer,
        log,
      });
      providers.push(provider);
      timeoutSumMs += config.timeoutMs;
      return provider.entry;
    },
    async primed() {
      await Promise.all(providers.map((provider) => provider.prime()));
    },
    async check() {
      const failures: string[] = [];
      await Promise.all(
        providers.map((provider, index) =>
          provider.check().catch((error: Error) => {
            failures[index] = `kms-provider-${index}: ${error.message}`;
          }),
        ),
      );
      const messages = failures.filter((message) => message !== undefined);
      if (messages.length === 1) throw new Error(messages[0]);
      if (messages.length > 1) throw new Error(`[${messages.join(', ')}]`);
    },
    get count() {
      return providers.length;
    },
    get timeoutSumMs() {
      return timeoutSumMs;
    },
    close() {
      for (const provider of providers) provider.close();
    },
  };
}

const OBSERVERS = new WeakMap<Registry, EnvelopeObserver>();

function envelopeObserver(registry: Registry, serverId: string): EnvelopeObserver {
  const known = OBSERVERS.get(registry);
  if (known !== undefined) return known;
  const registers = [registry];
  const idHash = hashOf(serverId);
  const latency = new Histogram({
    name: 'apiserver_envelope_encryption_kms_operations_latency_seconds',
    help: 'KMS operation duration with gRPC error code status total.',
    labelNames: ['provider_name', 'method_name', 'grpc_status_code'],
    buckets: exponentialBuckets(0.0001, 2, 20),
    registers,
  });
  const keyIdTotal = new Counter({
    name: 'apiserver_envelope_encryption_key_id_hash_total',
    help: 'Number of times a keyID is used split by transformation type, provider, and apiserver identity.',
    labelNames: ['transformation_type', 'provider_name', 'key_id_hash', 'apiserver_id_hash'],
    registers,
  });
  const keyIdLast = new Gauge({
    name: 'apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds',
    help: 'The last time in seconds when a keyID was used.',
    labelNames: ['transformation_type', 'provider_name', 'key_id_hash', 'apiserver_id_hash'],
    registers,
  });
  const statusKeyIdLast = new Gauge({
    name: 'apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds',
    help: 'The last time in seconds when a keyID was returned by the Status RPC call.',
    labelNames: ['provider_name', 'key_id_hash', 'apiserver_id_hash'],
    registers,
  });
  const invalidKeyId = new Counter({
    name: 'apiserver_envelope_encryption_invalid_key_id_from_status_total',
    help: 'Number of times an invalid keyID is returned by the Status RPC call split by error.',
    labelNames: ['provider_name', 'error'],
    registers,
  });
  const cacheSize = new Gauge({
    name: 'apiserver_envelope_encryption_dek_source_cache_size',
    help: 'Number of records in data encryption key (DEK) source cache. On a restart, this value is an approximation of the number of decrypt RPC calls the server will make to the KMS plugin.',
    labelNames: ['provider_name'],
    registers,
  });
  const cacheMisses = new Counter({
    name: 'apiserver_storage_envelope_transformation_cache_misses_total',
    help: 'Total number of cache misses while accessing key decryption key(KEK).',
    registers,
  });
  const keyGeneration = new Histogram({
    name: 'apiserver_storage_data_key_generation_duration_seconds',
    help: 'Latencies in seconds of data encryption key(DEK) generation operations.',
    buckets: exponentialBuckets(5e-6, 2, 14),
    registers,
  });
  const keyGenerationFailures = new Counter({
    name: 'apiserver_storage_data_key_generation_failures_total',
    help: 'Total number of failed data encryption key(DEK) generation operations.',
    registers,
  });
  const observer: EnvelopeObserver = {
    operation: ({ provider, method, seconds, codeName }) =>
      latency.observe({ provider_name: provider, method_name: method, grpc_status_code: codeName }, seconds),
    keyIdUsed(type, provider, keyId) {
      const labels = {
        transformation_type: type,
        provider_name: provider,
        key_id_hash: hashOf(keyId),
        apiserver_id_hash: idHash,
      };
      keyIdTotal.inc(labels);
      keyIdLast.set(labels, Date.now() / 1000);
    },
    keyIdFromStatus: (provider, keyId) =>
      statusKeyIdLast.set(
        { provider_name: provider, key_id_hash: hashOf(keyId), apiserver_id_hash: idHash },
        Date.now() / 1000,
      ),
    invalidKeyIdFromStatus: (provider, error) => invalidKeyId.inc({ provider_name: provider, error }),
    cacheMiss: () => cacheMisses.inc(),
    cacheSize: (provider, size) => cacheSize.set({ provider_name: provider }, size),
    dataKeyGenerated: (seconds) =>
      seconds === undefined ? keyGenerationFailures.inc() : keyGeneration.observe(seconds),
  };
  OBSERVERS.set(registry, observer);
  return observer;
}
