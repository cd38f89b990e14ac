/**
 * The reference's aggregator metrics: `aggregator_unavailable_apiservice` (1 for each APIService
 * not Available, 0 for the others, read from the APIServices at each scrape) and
 * `aggregator_unavailable_apiservice_total` (how often this replica saw one become unavailable,
 * by reason).
 */
import { Counter, Gauge } from 'prom-client';
import type { KubeObject } from '../../api/objects';
import type { ApiserverMetrics } from '../metrics/apiserver-metrics';
import { isAvailable, type AvailableCondition } from '../../api/apiregistration';

export interface AvailabilityMetrics {
  /** A check changed an APIService's condition from `previous` to `next`. */
  transitioned(
    name: string,
    previous: AvailableCondition | undefined,
    next: Pick<AvailableCondition, 'status' | 'reason'>,
  ): void;
}

export function availabilityMetrics(
  metrics: ApiserverMetrics,
  current: ReadonlyMap<string, KubeObject>,
): AvailabilityMetrics {
  const registers = [metrics.registry];
  const unavailable = new Gauge({
    name: 'aggregator_unavailable_apiservice',
    help: 'Gauge of APIServices which are marked as unavailable broken down by APIService name.',
    labelNames: ['name'],
    registers,
  });
  const unavailableTotal = new Counter({
    name: 'aggregator_unavailable_apiservice_total',
    help: 'Counter of APIServices which are marked as unavailable broken down by APIService name and reason.',
    labelNames: ['name', 'reason'],
    registers,
  });
  metrics.addCollector(() => {
    unavailable.reset();
    for (const [name, apiService] of current) unavailable.set({ name }, isAvailable(apiService) ? 0 : 1);
  });
  return {
    transitioned(name, previous, next) {
      if (next.status === 'True') return;
      if (previous?.status !== next.status || previous.reason !== next.reason)
        unavailableTotal.inc({ name, reason: next.reason ?? '' });
    },
  };
}
