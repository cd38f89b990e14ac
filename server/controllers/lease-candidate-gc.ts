/**
 * The LeaseCandidate garbage collector of coordinated leader election, as the reference's
 * (leasecandidategc_controller.go): every 30 minutes, from start, it deletes each candidate not
 * renewed for 30 minutes. A candidate expired in the informer's copy is read again first, since
 * its component may just have renewed it.
 */
import { isNotFoundError } from '../../storage/errors';
import type { KubeObject } from '../../api/objects';
import type { Informer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import type { ResourceType } from '../registry/types';
import { isCandidateExpired } from './lease-candidate-selection';
import { repeat } from './repeat';

/** The reference's LeaseCandidateGCPeriod. */
const GC_PERIOD_MS = 30 * 60_000;

/** Deletes the expired candidates among `cached`, each confirmed expired by a fresh read. */
export async function collectExpiredLeaseCandidates(
  operations: ObjectOperations,
  candidates: ResourceType,
  cached: Iterable<KubeObject>,
  now: Date,
): Promise<void> {
  const nowMicros = now.getTime() * 1000;
  const storage = operations.storageFor(candidates);
  for (const listed of [...cached]) {
    if (!isCandidateExpired(listed, nowMicros)) continue;
    const key = { namespace: listed.metadata.namespace, name: String(listed.metadata.name) };
    // One candidate's trouble does not stop the pass, as the reference only logs it.
    try {
      const current = await storage.get(key);
      if (isCandidateExpired(current, nowMicros)) await operations.deleteObject(candidates, key, {});
    } catch (error) {
      if (!isNotFoundError(error))
        console.error(`collecting LeaseCandidate ${key.namespace}/${key.name} failed:`, error);
    }
  }
}

export function startLeaseCandidateGC(
  operations: ObjectOperations,
  options: {
    readonly candidates: ResourceType;
    readonly informer: Informer;
    readonly stop: AbortSignal;
    readonly now?: () => Date;
  },
): void {
  const now = options.now ?? (() => new Date());
  repeat({
    run: async () => {
      await options.informer.synced;
      await collectExpiredLeaseCandidates(operations, options.candidates, options.informer.objects.values(), now());
    },
    periodMs: GC_PERIOD_MS,
    jitter: 0,
    stop: options.stop,
    what: 'collecting expired lease candidates',
  });
}
