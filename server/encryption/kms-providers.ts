/**
 * The KMS providers of one configuration: each `kms` entry becomes a provider with its own
 * plugin connection and probe, KMS v2 (storage/transform/kms-v2) or, with the KMSv1 gate on,
 * KMS v1 (storage/transform/kms-v1). Each answers a health check named `kms-provider-<n>` by
 * its place among the configuration's KMS entries, as the reference numbers them; together they
 * answer the `kms-providers` check, naming each failing one. Also the reference's
 * `apiserver_envelope_encryption_*` metrics; they are registered once per registry, since a
 * reload builds a new set of providers.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { EnvelopeV1Observer } from '../../storage/transform/kms-v1/envelope';
import { KmsV1Provider } from '../../storage/transform/kms-v1/kms-v1-provider';
import { KmsV2Provider, type EnvelopeObserver } from '../../storage/transform/kms-v2/kms-v2-provider';
import type { PrefixedTransformer } from '../../storage/transform/transformer';
import type { HealthCheck } from '../health/checks';
import { EncryptionConfigError } from './config-error';
import { kmsSocketPath, type KmsConfiguration } from './encryption-config';
import { exponentialBuckets, hashOf } from './encryption-metrics';
import { goAggregate } from '../../api/go-json-syntax';

export interface KmsProviders {
  /** Builds the entry of a `kms` provider of the configuration. */
  provider(config: KmsConfiguration): PrefixedTransformer;
  /** Resolves once every KMS v2 provider has probed its plugin once, healthy or not (v1 ones probe only when asked). */
  primed(): Promise<void>;
  /** Fails while any plugin is unhealthy: the `kms-providers` check. */
  check(): Promise<void>;
  /** One check per provider, `kms-provider-<n>`. */
  readonly checks: readonly HealthCheck[];
  /** Whether a KMS v1 provider is among them: the reference then names each provider's check apart. */
  readonly usesV1: boolean;
  readonly count: number;
  /** The sum of the providers' timeouts (twice a v1 one's, whose probe makes two calls): how long a reload waits for them, and the old ones linger. */
  readonly timeoutSumMs: number;
  close(): void;
}

interface Provider {
  readonly entry: PrefixedTransformer;
  check(): Promise<void>;
  close(): void;
}

const KMS_V1_DEPRECATED =
  'KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.';

export function kmsProviders(options: {
  registry: Registry;
  serverId: string;
  /** The KMSv1 gate: off, a v1 provider is refused with the reference's text. */
  kmsV1Enabled: boolean;
  log?: (message: string) => void;
}): KmsProviders {
  const providers: Provider[] = [];
  const v2Providers: KmsV2Provider[] = [];
  const observer = envelopeObserver(options.registry, options.serverId);
  const log = options.log ?? ((message: string) => console.error(message));
  let timeoutSumMs = 0;
  let usesV1 = false;
  const checks: HealthCheck[] = [];
  const add = (provider: Provider) => {
    checks.push({ name: `kms-provider-${providers.length}`, check: () => provider.check() });
    providers.push(provider);
    return provider.entry;
  };
  return {
    provider(config) {
      if (config.apiVersion === 'v1') {
        if (!options.kmsV1Enabled)
          throw new EncryptionConfigError(
            `error while building transformers: ${KMS_V1_DEPRECATED}  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.`,
          );
        log(KMS_V1_DEPRECATED);
        usesV1 = true;
        timeoutSumMs += 2 * config.timeoutMs;
        return add(
          new KmsV1Provider({
            name: config.name,
            socketPath: kmsSocketPath(config.endpoint),
            timeoutMs: config.timeoutMs,
            // Validation refuses 0; the decoding defaults an absent size.
            cacheSize: config.cachesize!,
            observer,
          }),
        );
      }
      const provider = new KmsV2Provider({
        name: config.name,
        socketPath: kmsSocketPath(config.endpoint),
        timeoutMs: config.timeoutMs,
        observer,
        log,
      });
      v2Providers.push(provider);
      timeoutSumMs += config.timeoutMs;
      return add(provider);
    },
    async primed() {
      await Promise.all(v2Providers.map((provider) => provider.prime()));
    },
    async check() {
      const failures: string[] = [];
      await Promise.all(
        checks.map((check, index) =>
          Promise.resolve(check.check()).catch((error: Error) => {
            failures[index] = `${check.name}: ${error.message}`;
          }),
        ),
      );
      const messages = failures.filter((message) => message !== undefined);
      if (messages.length > 0) throw new Error(goAggregate(messages));
    },
    checks,
    get usesV1() {
      return usesV1;
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

type Observer = EnvelopeObserver & EnvelopeV1Observer;

const OBSERVERS = new WeakMap<Registry, Observer>();

function envelopeObserver(registry: Registry, serverId: string): Observer {
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
  const dekCacheFill = new Gauge({
    name: 'apiserver_envelope_encryption_dek_cache_fill_percent',
    help: 'Percent of the cache slots currently occupied by cached DEKs.',
    registers,
  });
  const interArrivals = new Histogram({
    name: 'apiserver_envelope_encryption_dek_cache_inter_arrival_time_seconds',
    help: 'Time (in seconds) of inter arrival of transformation requests.',
    labelNames: ['transformation_type'],
    buckets: exponentialBuckets(60, 2, 10),
    registers,
  });
  // The first arrival of each type observes 0, as the reference's.
  const lastArrival = new Map<string, number>();
  const observer: Observer = {
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
    arrival(type) {
      const now = Date.now();
      interArrivals.observe({ transformation_type: type }, (now - (lastArrival.get(type) ?? now)) / 1000);
      lastArrival.set(type, now);
    },
    cacheFill: (fraction) => dekCacheFill.set(fraction),
  };
  OBSERVERS.set(registry, observer);
  return observer;
}
