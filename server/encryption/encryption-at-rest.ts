/**
 * Encryption at rest for one server: loads `--encryption-provider-config`, wraps each store so
 * that every resource's values go through its configured transformers, and with
 * `--encryption-provider-config-automatic-reload` follows the file as the reference's reload
 * controller does: a changed file (by content hash) is loaded, its KMS plugins must answer
 * healthy, and only then does it replace the configuration in effect; a bad file is logged,
 * counted as a failed reload and retried each minute, the old configuration staying.
 *
 * Health: with reload, or with KMS v2 providers alone, one `kms-providers` check joins
 * `/healthz` and `/readyz` (not `/livez`, as in the reference), failing while a plugin is
 * unhealthy; with a KMS v1 provider and no reload, each provider has its own check there,
 * `kms-provider-<n>`, as the reference has them.
 */
import { unwatchFile, watchFile } from 'node:fs';
import type { Registry } from 'prom-client';
import type { RevisionedStore } from '../../storage/store';
import { transformingStore } from '../../storage/transform/transforming-store';
import type { HealthCheck } from '../health/checks';
import {
  encryptionConfigHash,
  loadEncryptionConfiguration,
  readData,
  type EncryptionConfiguration,
} from './encryption-config';
import { createEncryptionMetrics, type EncryptionMetrics } from './encryption-metrics';
import { buildTransformers, resourceLabel, type BuiltTransformers, type GroupResource } from './encryption-providers';
import { kmsProviders, type KmsProviders } from './kms-providers';

/** The reference polls the file this often; a change seen sooner (the stat poll below) is acted on at once. */
const RELOAD_POLL_MS = 60_000;
const FILE_STAT_INTERVAL_MS = 1_000;
/** How long a new configuration's KMS plugins have to answer healthy, at least. */
const MIN_KMS_HEALTHY_WAIT_MS = 10_000;
const KMS_HEALTHY_POLL_MS = 100;

export interface EncryptionAtRestOptions {
  readonly path: string;
  readonly automaticReload: boolean;
  readonly registry: Registry;
  /** This server's identity, hashed into the metrics' `apiserver_id_hash`. */
  readonly serverId: string;
  /** The KMSv1 gate (off in 1.34). */
  readonly kmsV1Enabled: boolean;
  readonly log?: (message: string) => void;
}

export interface EncryptionAtRest {
  /** `store` with its values transformed; `resourceOfKey` says which stored resource a key is of. */
  wrap(store: RevisionedStore, resourceOfKey: (key: string) => GroupResource | undefined): RevisionedStore;
  /** For `/healthz` and `/readyz`. */
  readonly healthChecks: readonly HealthCheck[];
  /** Stops following the file and closes the KMS connections. */
  stop(): void;
}

interface Generation {
  readonly config: EncryptionConfiguration;
  readonly transformers: BuiltTransformers;
  readonly kms: KmsProviders;
}

/** Loads the configuration (refusing a bad one: the server does not start) and begins following it. */
export async function startEncryptionAtRest(options: EncryptionAtRestOptions): Promise<EncryptionAtRest> {
  const log = options.log ?? ((message: string) => console.error(message));
  const metrics = createEncryptionMetrics(options.registry, options.serverId);
  let current = await load(options, metrics);
  metrics.setConfigHash(current.config.contentHash);

  const kmsCheck: HealthCheck = { name: 'kms-providers', check: () => current.kms.check() };
  // Without reload the providers never change, so their own checks can stand for them.
  const healthChecks =
    options.automaticReload || (current.kms.count > 0 && !current.kms.usesV1) ? [kmsCheck] : current.kms.checks;

  let stopped = false;
  let reloading: Promise<void> | undefined;
  const reload = () => {
    reloading ??= reloadOnce().finally(() => (reloading = undefined));
  };
  async function reloadOnce(): Promise<void> {
    if (stopped) return;
    let next: Generation;
    try {
      if (encryptionConfigHash(readData(options.path)) === current.config.contentHash) return;
      next = await load({ ...options, automaticReload: true }, metrics);
    } catch (error) {
      log(`error processing encryption config file ${options.path}: ${(error as Error).message}`);
      metrics.recordReload('failure');
      return;
    }
    const unhealthy = await waitHealthy(next.kms);
    if (unhealthy !== undefined || stopped) {
      next.kms.close();
      if (stopped) return;
      log(
        `error processing encryption config file ${options.path}: health check for new transformers failed: ${unhealthy}`,
      );
      metrics.recordReload('failure');
      return;
    }
    const previous = current;
    current = next;
    metrics.recordReload('success');
    metrics.setConfigHash(next.config.contentHash);
    log(`loaded new encryption config content from ${options.path}`);
    // Reads that began under the old configuration finish with its plugins before they close.
    setTimeout(() => previous.kms.close(), Math.max(MIN_KMS_HEALTHY_WAIT_MS, 2 * previous.kms.timeoutSumMs)).unref();
  }

  let poll: NodeJS.Timeout | undefined;
  if (options.automaticReload) {
    watchFile(options.path, { interval: FILE_STAT_INTERVAL_MS, persistent: false }, reload);
    poll = setInterval(reload, RELOAD_POLL_MS).unref();
  }

  return {
    wrap(store, resourceOfKey) {
      return transformingStore(store, (key) => {
        const resource = resourceOfKey(key);
        // The configuration in effect at each call: a reload applies to the next value.
        return (
          resource && { transformer: current.transformers.transformerFor(resource), resource: resourceLabel(resource) }
        );
      });
    },
    healthChecks,
    stop() {
      stopped = true;
      if (poll !== undefined) clearInterval(poll);
      unwatchFile(options.path, reload);
      current.kms.close();
    },
  };
}

async function load(options: EncryptionAtRestOptions, metrics: EncryptionMetrics): Promise<Generation> {
  const config = loadEncryptionConfiguration(options.path, options.automaticReload);
  const kms = kmsProviders({
    registry: options.registry,
    serverId: options.serverId,
    kmsV1Enabled: options.kmsV1Enabled,
    log: options.log,
  });
  try {
    const transformers = buildTransformers(config, { record: metrics.recordTransformation, kms: kms.provider });
    await kms.primed();
    return { config, transformers, kms };
  } catch (error) {
    kms.close();
    throw error;
  }
}

/** Undefined once every KMS plugin of `kms` answers healthy; else the last failure when the wait is over. */
async function waitHealthy(kms: KmsProviders): Promise<string | undefined> {
  const deadline = Date.now() + Math.max(MIN_KMS_HEALTHY_WAIT_MS, kms.timeoutSumMs);
  for (;;) {
    try {
      await kms.check();
      return undefined;
    } catch (error) {
      if (Date.now() >= deadline) return (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, KMS_HEALTHY_POLL_MS));
  }
}
