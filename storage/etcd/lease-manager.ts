/**
 * Leases for keys written with a TTL, shared between writes as the reference's lease manager
 * shares them (k8s.io/apiserver storage/etcd3/lease_manager.go): granting a lease per write
 * would cost etcd a lease (and a raft entry) per Event.
 *
 * A write with TTL t reuses the last lease when that lease outlives now + t, by no more than
 * the reuse window r, and has fewer than `MAX_OBJECTS_PER_LEASE` keys; else a lease of t + r
 * is granted. So a key never expires before its TTL, and at most r seconds after it. The
 * window r is the smaller of `--lease-reuse-duration-seconds` and 5% of t: with short TTLs no
 * lease is reused.
 */
import type { EtcdClient } from './client/client';

/** The reference's default for `--lease-reuse-duration-seconds`. */
export const DEFAULT_LEASE_REUSE_DURATION_SECONDS = 60;
const REUSE_DURATION_FRACTION_OF_TTL = 0.05;
const MAX_OBJECTS_PER_LEASE = 1_000;

export class LeaseManager {
  private leaseId = 0n;
  private leaseExpiresAtMs = 0;
  private attachedObjects = 0;
  /** A grant in flight: writes arriving meanwhile wait for it rather than grant their own. */
  private granting: Promise<bigint> | undefined;

  constructor(
    private readonly client: EtcdClient,
    private readonly reuseDurationSeconds: number = DEFAULT_LEASE_REUSE_DURATION_SECONDS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A lease that lives at least `ttlSeconds` from now. */
  async leaseFor(ttlSeconds: number): Promise<bigint> {
    for (;;) {
      const reuseSeconds = Math.max(
        0,
        Math.min(this.reuseDurationSeconds, Math.floor(REUSE_DURATION_FRACTION_OF_TTL * ttlSeconds)),
      );
      const expiresAtMs = this.now() + ttlSeconds * 1000;
      const lastingEnough = expiresAtMs < this.leaseExpiresAtMs;
      const notTooLong = expiresAtMs + reuseSeconds * 1000 > this.leaseExpiresAtMs;
      if (lastingEnough && notTooLong && this.attachedObjects < MAX_OBJECTS_PER_LEASE) {
        this.attachedObjects++;
        return this.leaseId;
      }
      if (this.granting) {
        // Another write is granting a lease; it may suit this one too.
        await this.granting.catch(() => undefined);
        continue;
      }
      return this.grant(ttlSeconds + reuseSeconds);
    }
  }

  /** Forgets the current lease (etcd no longer knows it: revoked or expired early). */
  forget(leaseId: bigint): void {
    if (this.leaseId === leaseId) this.leaseExpiresAtMs = 0;
  }

  private async grant(ttlSeconds: number): Promise<bigint> {
    const grantedAtMs = this.now();
    this.granting = this.client.leaseGrant(ttlSeconds).then((granted) => {
      this.leaseId = granted.id;
      // Counted from before the request: the lease's own clock started later, never earlier.
      this.leaseExpiresAtMs = grantedAtMs + granted.ttl * 1000;
      this.attachedObjects = 1;
      return granted.id;
    });
    try {
      return await this.granting;
    } finally {
      this.granting = undefined;
    }
  }
}
