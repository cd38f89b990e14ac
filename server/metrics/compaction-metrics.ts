/**
 * The Compactor's `onCompacted` callback that counts this replica's compactions: summed over
 * replicas, `capstan_compactions_total` grows by one per interval, and which replica's grows
 * shows who won the round.
 */
import type { ApiserverMetrics } from './apiserver-metrics';

export function recordCompactions(metrics: ApiserverMetrics): (revision: number) => void {
  return (revision) => {
    metrics.compactions.inc();
    metrics.compactedRevision.set(revision);
  };
}
