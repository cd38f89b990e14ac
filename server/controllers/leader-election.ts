/**
 * Leader election through a coordination.k8s.io/v1 Lease, as client-go's leaderelection does:
 * the holder renews `spec.renewTime` every retry period; another candidate takes the lease over
 * only after it has seen the same record unchanged for a whole lease duration (measured on its
 * own clock, so clock skew between replicas does not matter). Every write is conditional on the
 * lease's resourceVersion, so two candidates can never both win.
 */
import { unlessNotFound } from '../../storage/errors';
import type { ObjectStorage } from '../../storage/objects/types';
import { fillCreateMetadata } from '../registry/store/object-meta';

import type { KubeObject } from '../../api/objects';
export interface LeaderElectionOptions {
  readonly leases: ObjectStorage;
  readonly namespace: string;
  readonly name: string;
  /** Unique per replica (hostname + random suffix). */
  readonly identity: string;
  readonly leaseDurationSeconds?: number;
  readonly retryPeriodMs?: number;
  /**
   * How long a leader keeps retrying a failed renewal before it gives up leadership, as
   * client-go's renew deadline; absent, the first failed renewal ends it.
   */
  readonly renewDeadlineMs?: number;
  /** Called when this replica becomes leader; the signal aborts when leadership is lost. */
  readonly onStartedLeading: (lost: AbortSignal) => void;
}

export interface LeaderElection {
  isLeader(): boolean;
  /** Stops campaigning; a leader gives the lease up (clears the holder) so another takes over at once. */
  stop(): Promise<void>;
}

/** A coordination.k8s.io/v1 Lease's spec, as leader election writes it. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** MicroTime as the reference writes it: RFC 3339 with microseconds. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function startLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
  const retryPeriodMs = options.retryPeriodMs ?? 2000;
  const key = { namespace: options.namespace, name: options.name };
  let leading: AbortController | undefined;
  let observed: { record: string; at: number } | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let renewedAt = 0;

  const leaseFor = (spec: LeaseSpec, old?: KubeObject): KubeObject => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: old ? { ...old.metadata } : { name: options.name, namespace: options.namespace },
    spec,
  });

  const acquireOrRenew = async (): Promise<boolean> => {
    const now = new Date();
    const mine: LeaseSpec = {
      holderIdentity: options.identity,
      leaseDurationSeconds,
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    const current = await unlessNotFound(options.leases.get(key));
    if (current === undefined) {
      // Written past the generic store: the uid and creation time every stored object has are set here.
      const lease = leaseFor(mine);
      fillCreateMetadata(lease, now);
      await options.leases.create(key, lease);
      return true;
    }
    const spec = (current.spec ?? {}) as LeaseSpec;
    const record = JSON.stringify(spec);
    if (observed?.record !== record) observed = { record, at: Date.now() };
    const held = spec.holderIdentity === options.identity;
    const expired =
      !spec.holderIdentity || Date.now() - observed.at > (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
    if (!held && !expired) return false;
    const next: LeaseSpec = held
      ? { ...spec, renewTime: mine.renewTime, leaseDurationSeconds }
      : { ...mine, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
    const resourceVersion = current.metadata.resourceVersion;
    await options.leases.update(key, (latest) => leaseFor(next, latest), { preconditions: { resourceVersion } });
    observed = { record: JSON.stringify(next), at: Date.now() };
    return true;
  };

  const tick = async (): Promise<void> => {
    let won = false;
    try {
      won = await acquireOrRenew();
    } catch {
      won = false; // a lost race or store trouble: not leader this round
    }
    if (stopped) return;
    if (won) renewedAt = Date.now();
    const withinRenewDeadline =
      options.renewDeadlineMs !== undefined && Date.now() - renewedAt < options.renewDeadlineMs;
    if (won && !leading) {
      leading = new AbortController();
      options.onStartedLeading(leading.signal);
    } else if (!won && leading && !withinRenewDeadline) {
      leading.abort();
      leading = undefined;
    }
    timer = setTimeout(() => void tick(), retryPeriodMs);
  };
  void tick();

  return {
    isLeader: () => leading !== undefined,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (!leading) return;
      leading.abort();
      leading = undefined;
      try {
        await options.leases.update(key, (latest) => {
          const spec = { ...((latest?.spec ?? {}) as LeaseSpec) };
          if (spec.holderIdentity === options.identity) {
            delete spec.holderIdentity;
          }
          return leaseFor(spec, latest);
        });
      } catch {
        // Best effort: the lease expires by itself.
      }
    },
  };
}
