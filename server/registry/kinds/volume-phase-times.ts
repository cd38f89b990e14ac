/**
 * A PersistentVolume's `status.lastPhaseTransitionTime`, as the reference's strategies keep it:
 * set when the volume is created (Pending); on a status write, kept while the phase stays and
 * the writer sets none, and set anew when the phase changes and the writer set no time of its
 * own (or sent the stored one back).
 */
import { metaTime, type KubeObject } from '../../../api/objects';
import type { WriteContext } from '../types';

type Status = { phase?: string; lastPhaseTransitionTime?: string | null };

const statusOf = (volume: KubeObject): Status => (volume.status ?? {}) as Status;
const nowOf = (context: WriteContext): string => metaTime(context.now?.() ?? new Date());

export function stampCreatedPhase(volume: KubeObject, context: WriteContext): void {
  volume.status = { ...statusOf(volume), lastPhaseTransitionTime: nowOf(context) };
}

export function stampPhaseChange(volume: KubeObject, old: KubeObject, context: WriteContext): void {
  const status = statusOf(volume);
  const stored = statusOf(old);
  const sent = status.lastPhaseTransitionTime ?? undefined;
  if (status.phase === stored.phase) {
    if (sent === undefined && stored.lastPhaseTransitionTime != null)
      volume.status = { ...status, lastPhaseTransitionTime: stored.lastPhaseTransitionTime };
  } else if (sent === undefined || sent === stored.lastPhaseTransitionTime) {
    volume.status = { ...status, lastPhaseTransitionTime: nowOf(context) };
  }
}
