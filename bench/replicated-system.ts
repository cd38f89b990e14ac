/**
 * An API server as a deployment runs it: several replicas of one kind (capstan, or the reference
 * kube-apiserver) on one etcd cluster, behind their own haproxy with the deployed configuration
 * (TCP passthrough, /readyz checks, round robin per connection), all replicas sharing one PKI so
 * the admin client certificate reaches every one of them through the balancer.
 *
 * capstan's replicas share the first replica's generated PKI (copied into the data dirs of the
 * others before they start); the reference replicas are given the same files, as in
 * side-by-side.ts.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { startCapstanProcess, type CapstanProcess, type ServerPki } from './capstan-process';
import type { ClientCredentials } from './https-client';
import { startReferenceProcess, type ReferenceProcess } from './reference-process';
import { scratchDir } from './scratch';
// The tests' haproxy launcher and port finder (compiled into dist/ with the rest): the deployed balancer, on loopback.
import { startHaproxy } from '../test/cluster/haproxy';
import { freePort } from '../test/helpers/ports';

/** The deployed configuration's check interval: health checks cost each replica the same as in a deployment. */
const CHECK_INTERVAL_MS = 2_000;
/**
 * How long the balancer may go on refusing a replica that answers again: it marks one up after
 * two passed checks (`rise 2` in deploy/haproxy/haproxy.cfg), a check interval apart.
 */
export const BALANCER_RISE_MS = 3 * CHECK_INTERVAL_MS;

export interface ReplicatedSystem {
  readonly label: string;
  /** The balancer's URL. */
  readonly url: string;
  readonly credentials: ClientCredentials;
  /** The replicas' process ids, in replica order. */
  readonly pids: readonly number[];
  /** Each replica's own URL, past the balancer, in replica order. */
  readonly replicaUrls: readonly string[];
  /** Stops the balancer, then every replica (removing capstan's data dirs). */
  stop(): Promise<void>;
}

interface Replica {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface CapstanSystem extends ReplicatedSystem {
  /** The shared PKI, for the reference replicas to serve with. */
  readonly pkiDir: string;
  readonly pki: ServerPki;
}

/** `replicas` capstan processes on `etcdEndpoints`, each pinned to `cpus` and started with `flags`. */
export async function startCapstanSystem(options: {
  readonly replicas: number;
  readonly etcdEndpoints: readonly string[];
  readonly cpus: string;
  readonly flags: readonly string[];
}): Promise<CapstanSystem> {
  const etcdEndpoint = options.etcdEndpoints.join(',');
  const start = (dataDir?: ReturnType<typeof scratchDir>) =>
    startCapstanProcess({ etcdEndpoint, cpus: options.cpus, flags: options.flags, dataDir });
  const started: CapstanProcess[] = [];
  try {
    const first = await start();
    started.push(first);
    const pkiDir = join(first.dataDir, 'pki');
    for (let i = 1; i < options.replicas; i++) {
      const dataDir = scratchDir({ prefix: 'capstan-bench-replica-', inMemory: false });
      cpSync(pkiDir, join(dataDir.path, 'pki'), { recursive: true });
      started.push(await start(dataDir));
    }
    const system = await behindBalancer('capstan', first.pki.client, started);
    return { ...system, pkiDir, pki: first.pki };
  } catch (error) {
    for (const replica of started) await replica.stop();
    throw error;
  }
}

/** `replicas` reference kube-apiservers on `etcdEndpoints` under `etcdPrefix`, serving with capstan's PKI. */
export async function startReferenceSystem(
  binary: string,
  options: {
    readonly replicas: number;
    readonly etcdEndpoints: readonly string[];
    readonly etcdPrefix: string;
    readonly cpus: string;
    readonly pkiDir: string;
    readonly pki: ServerPki;
  },
): Promise<ReplicatedSystem> {
  const started: ReferenceProcess[] = [];
  try {
    for (let i = 0; i < options.replicas; i++) {
      started.push(
        await startReferenceProcess(binary, {
          etcdEndpoint: options.etcdEndpoints.join(','),
          etcdPrefix: options.etcdPrefix,
          pkiDir: options.pkiDir,
          pki: options.pki,
          cpus: options.cpus,
        }),
      );
    }
    return await behindBalancer('reference', options.pki.client, started);
  } catch (error) {
    for (const replica of started) await replica.stop();
    throw error;
  }
}

async function behindBalancer(
  label: string,
  credentials: ClientCredentials,
  replicas: readonly Replica[],
): Promise<ReplicatedSystem> {
  const balancer = await startHaproxy({
    port: await freePort(),
    replicaPorts: replicas.map((replica) => Number(new URL(replica.url).port)),
    checkIntervalMs: CHECK_INTERVAL_MS,
  });
  return {
    label,
    url: balancer.url,
    credentials,
    pids: replicas.map((replica) => replica.pid),
    replicaUrls: replicas.map((replica) => replica.url),
    stop: async () => {
      await balancer.stop();
      await Promise.all(replicas.map((replica) => replica.stop()));
    },
  };
}
