/**
 * The API server's identity lease, as every kube-apiserver keeps one (the APIServerIdentity
 * feature, on since 1.26): `kube-system/apiserver-<hash>`, labelled
 * `apiserver.kubernetes.io/identity=kube-apiserver` and with the host's name, renewed every
 * 10 s (with the reference's 4% jitter) for an hour's duration. Tools and controllers count the
 * live API servers by these leases (storage version migration, coordinated leader election).
 *
 * The name is the reference's: `apiserver-` and the lowercase unpadded base32 of the first 16
 * bytes of SHA-256 over the host name and `kube-apiserver`, each with a two-byte length before
 * it (cryptobyte's length prefix), so replicas on one host share a name, as the reference's do.
 *
 * Each replica also collects the leases of servers gone for longer than their duration, once
 * at start and then hourly, reading each again before deleting it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { unlessNotFound } from '../../storage/errors';
import { EVERYTHING } from '../../storage/objects/types';
import type { ObjectOperations } from '../client/operations';
import type { ResourceType } from '../registry/types';
import { microTime } from './leader-election';
import { repeat } from './repeat';

import type { KubeObject } from '../../api/objects';

export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
const IDENTITY = 'kube-apiserver';
const HOSTNAME_LABEL = 'kubernetes.io/hostname';
const NAMESPACE = 'kube-system';
const LEASE_DURATION_SECONDS = 3600;
const RENEW_INTERVAL_MS = 10_000;
const RENEW_JITTER = 0.04;
const GC_PERIOD_MS = 3600_000;

/** `apiserver-<hash>` for this host, as the reference derives it. */
export function apiserverIdentity(hostname: string): string {
  const lengthPrefixed = (text: string) => {
    const bytes = Buffer.from(text, 'utf8');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(bytes.length);
    return [length, bytes];
  };
  const hash = createHash('sha256')
    .update(Buffer.concat([...lengthPrefixed(hostname), ...lengthPrefixed(IDENTITY)]))
    .digest();
  return `apiserver-${base32(hash.subarray(0, 16)).toLowerCase()}`;
}

/** RFC 4648 base32, unpadded. */
function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

export interface IdentityLeaseOptions {
  readonly leases: ResourceType;
  readonly hostname: string;
  readonly stop: AbortSignal;
  /** Overrides for tests: how often the lease is renewed and collected. */
  readonly renewIntervalMs?: number;
  readonly gcPeriodMs?: number;
}

/** Keeps this server's lease until `stop`; the first write is under way when this returns. */
export function startIdentityLease(operations: ObjectOperations, options: IdentityLeaseOptions): void {
  const name = apiserverIdentity(options.hostname);
  const holderIdentity = `${name}_${randomUUID()}`;
  const key = { namespace: NAMESPACE, name };
  const renewed = (lease: KubeObject): void => {
    lease.metadata.labels = {
      ...lease.metadata.labels,
      [IDENTITY_LABEL]: IDENTITY,
      [HOSTNAME_LABEL]: options.hostname,
    };
    lease.spec = {
      ...(lease.spec as Record<string, unknown> | undefined),
      holderIdentity,
      leaseDurationSeconds: LEASE_DURATION_SECONDS,
      renewTime: microTime(new Date()),
    };
  };
  const renew = async (): Promise<void> => {
    if ((await unlessNotFound(operations.storageFor(options.leases).get(key))) === undefined) {
      const lease: KubeObject = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { ...key } };
      renewed(lease);
      await operations.createObject(options.leases, lease);
      return;
    }
    await operations.updateObject(options.leases, key, renewed);
  };
  repeat({
    run: renew,
    periodMs: options.renewIntervalMs ?? RENEW_INTERVAL_MS,
    jitter: RENEW_JITTER,
    stop: options.stop,
    what: 'renewing the apiserver identity lease',
  });
  repeat({
    run: () => collectExpiredLeases(operations, options.leases, new Date()),
    periodMs: options.gcPeriodMs ?? GC_PERIOD_MS,
    jitter: 0,
    stop: options.stop,
    what: 'collecting expired apiserver identity leases',
  });
}

/** Whether a lease's holder has not renewed it within its duration (or it lacks either field). */
export function isExpired(lease: KubeObject, now: Date): boolean {
  const spec = lease.spec as { renewTime?: unknown; leaseDurationSeconds?: unknown } | undefined;
  if (typeof spec?.renewTime !== 'string' || typeof spec.leaseDurationSeconds !== 'number') return true;
  return Date.parse(spec.renewTime) + spec.leaseDurationSeconds * 1000 < now.getTime();
}

/** Deletes the expired identity leases, each read again first: its holder may just have renewed it. */
export async function collectExpiredLeases(operations: ObjectOperations, leases: ResourceType, now: Date) {
  const storage = operations.storageFor(leases);
  const { items } = await storage.list({ namespace: NAMESPACE }, { predicate: EVERYTHING });
  for (const listed of items) {
    if (listed.metadata.labels?.[IDENTITY_LABEL] !== IDENTITY || !isExpired(listed, now)) continue;
    const key = { namespace: NAMESPACE, name: listed.metadata.name ?? '' };
    const current = await unlessNotFound(storage.get(key));
    // Undefined: another replica collected it.
    if (current === undefined || !isExpired(current, now)) continue;
    await operations.deleteObject(leases, key, { uid: current.metadata.uid });
  }
}
