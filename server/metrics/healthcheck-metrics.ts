/**
 * The health checks' service-level metrics, served apart at `/metrics/slis` as the reference
 * serves them (component-base's slis registry): each check's last result in
 * `kubernetes_healthcheck` (1 passed, 0 failed) and a count of results in
 * `kubernetes_healthchecks_total`, by check and by endpoint (`livez`, `readyz`, `healthz`).
 * Only a whole endpoint's run records them, as the reference's root handler does; a single
 * check's own path and excluded checks do not.
 */
import { Counter, Gauge, Registry } from 'prom-client';

const START_TIME = 'process_start_time_seconds';

export interface HealthcheckMetrics {
  readonly registry: Registry;
  observe(check: string, endpoint: string, passed: boolean): void;
  /**
   * Empties the registry as the reference's reset does: its start time is a vector's only
   * child, which the reset deletes for good (it is set once, at start).
   */
  reset(): void;
}

export function createHealthcheckMetrics(): HealthcheckMetrics {
  const registry = new Registry();
  const registers = [registry];
  const result = new Gauge({
    name: 'kubernetes_healthcheck',
    help: '[STABLE] This metric records the result of a single healthcheck.',
    labelNames: ['name', 'type'],
    registers,
  });
  const results = new Counter({
    name: 'kubernetes_healthchecks_total',
    help: '[STABLE] This metric records the results of all healthcheck.',
    // In Go's order, sorted, as the reference prints them.
    labelNames: ['name', 'status', 'type'],
    registers,
  });
  const startTime = new Gauge({
    name: START_TIME,
    help: '[ALPHA] Start time of the process since unix epoch in seconds.',
    registers,
  });
  startTime.set(performance.timeOrigin / 1000);
  return {
    registry,
    observe(check, endpoint, passed) {
      result.set({ name: check, type: endpoint }, passed ? 1 : 0);
      results.inc({ name: check, status: passed ? 'success' : 'error', type: endpoint });
    },
    reset() {
      result.reset();
      results.reset();
      registry.removeSingleMetric(START_TIME);
    },
  };
}
