/**
 * The coordinated leader election controller (the CoordinatedLeaderElection feature), as the
 * reference's (pkg/controlplane/controller/leaderelection/leaderelection_controller.go): for
 * every lease named by LeaseCandidates it keeps the Lease's holder the candidate the election
 * rules (lease-candidate-selection.ts) prefer. It holds no election state of its own: each step
 * reads the Lease and the candidates and does one of
 *
 * - nothing, when the holder is already the best candidate, or candidates are still answering;
 * - ping the candidates not renewed in the last 5 s (set their `pingTime`), and wait up to 5 s
 *   for them to renew;
 * - elect among the candidates renewed in the last 5 s: create the Lease with the electee as
 *   holder (5 s duration), take over an expired Lease or one without holder, or, while another
 *   holder's Lease is live, name the electee `preferredHolder` so the holder steps down.
 *
 * A lease is looked at again 5 s after each step, to notice it expiring. Every 15 minutes an
 * election is forced, so candidates are pinged and the stale ones found. The garbage collector
 * of candidates (lease-candidate-gc.ts) runs beside it, on the same informer.
 */
import type { KubeObject } from '../../api/objects';
import { startInformer, type Informer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';
import type { ResourceType } from '../registry/types';
import { unlessNotFound } from '../../storage/errors';
import { isExpired } from './apiserver-identity-lease';
import { microTime, type LeaseSpec } from './leader-election';
import { startLeaseCandidateGC } from './lease-candidate-gc';
import {
  candidateSpec,
  instantOf,
  isCandidateExpired,
  LEASE_CANDIDATE_VALID_MICROS,
  OLDEST_EMULATION_VERSION,
  oldestEmulationVersionLeader,
  strategyOf,
} from './lease-candidate-selection';

const REQUEUE_MS = 5_000;
const NO_REQUEUE = 0;
/** How long pinged candidates have to answer, and how recent a renewal counts as an answer. */
const ELECTION_MICROS = 5_000_000;
const LEASE_DURATION_SECONDS = 5;

/** The Lease fields coordinated leader election adds. */
interface CoordinatedLeaseSpec extends LeaseSpec {
  strategy?: string;
  preferredHolder?: string;
}

interface Step {
  readonly requeueMs: number;
  readonly error?: string;
}

export interface CoordinatedLeaderElectionTypes {
  readonly leases: ResourceType;
  /** coordination.k8s.io/v1beta1 LeaseCandidates, the version the reference's controller reads. */
  readonly candidates: ResourceType;
}

/**
 * The Lease spec after an election of `holder` (undefined under a strategy this controller does
 * not elect for) under `strategy`, or undefined when the Lease needs no change.
 */
export function electedLeaseSpec(
  lease: KubeObject,
  election: { strategy: string; holder: string | undefined; now: Date },
): CoordinatedLeaseSpec | undefined {
  const spec = (lease.spec ?? {}) as CoordinatedLeaseSpec;
  const { strategy, holder } = election;
  // The reference dereferences the current holder here and so fails on a Lease without one;
  // an absent holder is taken as empty instead.
  const currentHolder = spec.holderIdentity ?? '';
  const next: CoordinatedLeaseSpec = { ...spec };
  if (spec.strategy !== strategy) next.strategy = strategy;
  const noHolder = holder !== undefined && currentHolder === '';
  const expiredAndNewHolder = holder !== undefined && isExpired(lease, election.now) && currentHolder !== holder;
  if (noHolder || expiredAndNewHolder) {
    delete next.preferredHolder;
    delete next.acquireTime;
    next.holderIdentity = holder;
    next.renewTime = microTime(election.now);
    next.leaseDurationSeconds = LEASE_DURATION_SECONDS;
  } else if (holder !== undefined && holder !== currentHolder) {
    next.preferredHolder = holder;
  }
  const changed = (Object.keys({ ...spec, ...next }) as (keyof CoordinatedLeaseSpec)[]).some(
    (field) => spec[field] !== next[field],
  );
  return changed ? next : undefined;
}

export function startCoordinatedLeaderElection(
  operations: ObjectOperations,
  options: CoordinatedLeaderElectionTypes & { readonly stop: AbortSignal; readonly now?: () => Date },
): void {
  const { leases, candidates, stop } = options;
  const clock = options.now ?? (() => new Date());
  const queue = startWorkQueue<string>({
    stop,
    handle: async (key) => {
      await Promise.all([leaseInformer.synced, candidateInformer.synced]);
      const step = await electionStep(key).catch((error: unknown) => ({
        requeueMs: NO_REQUEUE,
        error: String(error),
      }));
      if (step.error !== undefined && !stop.aborted) console.error(`election of lease ${key}:`, step.error);
      if (step.requeueMs !== NO_REQUEUE) queue.addAfter(key, step.requeueMs);
    },
  });
  const enqueueCandidate = (candidate: KubeObject): void => {
    const spec = candidateSpec(candidate);
    const pinged = instantOf(spec.pingTime);
    const renewed = instantOf(spec.renewTime);
    // A candidate that has not answered a ping yet is part of an election already under way.
    if (pinged !== undefined && renewed !== undefined && renewed < pinged) return;
    queue.add(`${candidate.metadata.namespace}/${spec.leaseName}`);
  };
  const enqueueLease = (lease: KubeObject): void => queue.add(`${lease.metadata.namespace}/${lease.metadata.name}`);
  const leaseInformer: Informer = startInformer(operations.storageFor(leases), {
    onUpsert: enqueueLease,
    onDelete: enqueueLease,
  });
  const candidateInformer: Informer = startInformer(operations.storageFor(candidates), {
    onUpsert: enqueueCandidate,
    onDelete: enqueueCandidate,
  });
  stop.addEventListener(
    'abort',
    () => {
      leaseInformer.stop();
      candidateInformer.stop();
    },
    { once: true },
  );
  startLeaseCandidateGC(operations, { candidates, informer: candidateInformer, stop, now: options.now });

  /** The live candidates for the lease `namespace/name`. */
  const admissibleCandidates = (namespace: string, name: string, nowMicros: number): KubeObject[] =>
    [...candidateInformer.objects.values()].filter(
      (candidate) =>
        candidate.metadata.namespace === namespace &&
        candidateSpec(candidate).leaseName === name &&
        !isCandidateExpired(candidate, nowMicros),
    );

  const electionNeeded = (
    lease: KubeObject | undefined,
    live: readonly KubeObject[],
    now: Date,
  ): boolean | { error: string } => {
    if (lease === undefined) return true;
    const holder = (lease.spec as CoordinatedLeaseSpec | undefined)?.holderIdentity;
    if (isExpired(lease, now) || !holder) return true;
    const nowMicros = now.getTime() * 1000;
    // Half way to being collected, a candidate is pinged again: the answers tell the stale ones.
    if (
      live.some((candidate) => {
        const renewed = instantOf(candidateSpec(candidate).renewTime);
        return renewed !== undefined && renewed + LEASE_CANDIDATE_VALID_MICROS / 2 < nowMicros;
      })
    )
      return true;
    const preliminary = strategyOf(live);
    if ('error' in preliminary) return preliminary;
    if (preliminary.strategy !== OLDEST_EMULATION_VERSION) return false;
    const electee = oldestEmulationVersionLeader(live);
    return electee !== undefined && electee.metadata.name !== holder;
  };

  /** Pings the candidates that need it; true when every candidate has answered recently. */
  const pingCandidates = async (live: readonly KubeObject[], now: Date): Promise<boolean> => {
    const nowMicros = now.getTime() * 1000;
    let canVote = true;
    const pings: Promise<void>[] = [];
    for (const candidate of live) {
      const spec = candidateSpec(candidate);
      const pinged = instantOf(spec.pingTime);
      const renewed = instantOf(spec.renewTime);
      const unanswered = pinged !== undefined && renewed !== undefined && renewed < pinged;
      if (pinged !== undefined && pinged + ELECTION_MICROS > nowMicros && unanswered) {
        canVote = false;
        continue;
      }
      if (renewed !== undefined && renewed + ELECTION_MICROS > nowMicros) continue;
      // An old ping is sent again only once the candidate has answered the last.
      if (pinged === undefined || (pinged + ELECTION_MICROS < nowMicros && !unanswered)) {
        const key = { namespace: candidate.metadata.namespace, name: String(candidate.metadata.name) };
        pings.push(
          operations.updateObject(candidates, key, (current) => {
            current.spec = { ...candidateSpec(current), pingTime: microTime(now) };
          }),
        );
        canVote = false;
      }
    }
    await Promise.all(pings);
    return canVote;
  };

  const electionStep = async (key: string): Promise<Step> => {
    const [namespace, name] = key.split('/');
    const now = clock();
    const nowMicros = now.getTime() * 1000;
    const live = admissibleCandidates(namespace, name, nowMicros);
    if (live.length === 0) return { requeueMs: NO_REQUEUE };
    const needed = electionNeeded(leaseInformer.objects.get(key), live, now);
    if (needed !== true) return { requeueMs: REQUEUE_MS, error: needed === false ? undefined : needed.error };
    let canVote: boolean;
    try {
      canVote = await pingCandidates(live, now);
    } catch (error) {
      return { requeueMs: REQUEUE_MS, error: String(error) };
    }
    if (!canVote) return { requeueMs: REQUEUE_MS };
    // Still waiting for a pinged candidate to answer: its renewal brings the lease back here.
    for (const candidate of live) {
      const pinged = instantOf(candidateSpec(candidate).pingTime);
      const renewed = instantOf(candidateSpec(candidate).renewTime);
      if (pinged === undefined || (renewed !== undefined && renewed >= pinged)) continue;
      if (pinged + ELECTION_MICROS > nowMicros) return { requeueMs: NO_REQUEUE };
    }
    const answered = live.filter(
      (candidate) => (instantOf(candidateSpec(candidate).renewTime) ?? 0) + ELECTION_MICROS > nowMicros,
    );
    if (answered.length === 0) return { requeueMs: NO_REQUEUE, error: 'no available candidates' };
    const chosen = strategyOf(answered);
    if ('error' in chosen) return { requeueMs: NO_REQUEUE, error: chosen.error };
    const { strategy } = chosen;
    let holder: string | undefined;
    if (strategy === OLDEST_EMULATION_VERSION) {
      const electee = oldestEmulationVersionLeader(answered);
      if (electee === undefined)
        return { requeueMs: NO_REQUEUE, error: 'should not happen, could not find suitable electee' };
      holder = String(electee.metadata.name);
    }
    // Under another strategy the Lease is made without a holder, for that strategy's own controller.
    const leaseKey = { namespace, name };
    const existing = await unlessNotFound(operations.storageFor(leases).get(leaseKey));
    if (existing === undefined) {
      const spec: CoordinatedLeaseSpec = {
        ...(holder === undefined ? {} : { holderIdentity: holder }),
        leaseDurationSeconds: LEASE_DURATION_SECONDS,
        renewTime: microTime(clock()),
        strategy,
      };
      await operations.createObject(leases, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { namespace, name },
        spec,
      });
      return { requeueMs: REQUEUE_MS };
    }
    if (electedLeaseSpec(existing, { strategy, holder, now }) === undefined) return { requeueMs: REQUEUE_MS };
    await operations.updateObject(leases, leaseKey, (current) => {
      current.spec = electedLeaseSpec(current, { strategy, holder, now }) ?? current.spec;
    });
    return { requeueMs: REQUEUE_MS };
  };
}
