/**
 * The reference's main API Priority and Fairness metrics, in the server's registry. Labelled
 * children are cached per schema and level, so a request costs no label hashing.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RejectReason } from './level-queues';

const LABELS = ['flow_schema', 'priority_level'] as const;
/** The reference's wait-duration buckets (seconds). */
const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

export interface FlowMetrics {
  dispatched(wait: number): void;
  rejected(reason: RejectReason, wait: number): void;
  inQueue(delta: 1 | -1): void;
  executing(delta: 1 | -1): void;
}

export function flowcontrolMetrics(registry: Registry): (schema: string, level: string) => FlowMetrics {
  const registers = [registry];
  const dispatched = new Counter({
    name: 'apiserver_flowcontrol_dispatched_requests_total',
    help: 'Number of requests executed by API Priority and Fairness subsystem',
    labelNames: LABELS,
    registers,
  });
  const rejected = new Counter({
    name: 'apiserver_flowcontrol_rejected_requests_total',
    help: 'Number of requests rejected by API Priority and Fairness subsystem',
    labelNames: [...LABELS, 'reason'],
    registers,
  });
  const inQueue = new Gauge({
    name: 'apiserver_flowcontrol_current_inqueue_requests',
    help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
    labelNames: LABELS,
    registers,
  });
  const executing = new Gauge({
    name: 'apiserver_flowcontrol_current_executing_requests',
    help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
    labelNames: LABELS,
    registers,
  });
  const wait = new Histogram({
    name: 'apiserver_flowcontrol_request_wait_duration_seconds',
    help: 'Length of time a request spent waiting in its queue',
    labelNames: [...LABELS, 'execute'],
    buckets: WAIT_BUCKETS,
    registers,
  });
  const cache = new Map<string, FlowMetrics>();
  return (schema, level) => {
    const key = `${schema}\u0000${level}`;
    let found = cache.get(key);
    if (found === undefined) {
      const labels = { flow_schema: schema, priority_level: level };
      const dispatchedChild = dispatched.labels(labels);
      const inQueueChild = inQueue.labels(labels);
      const executingChild = executing.labels(labels);
      const executedWait = wait.labels({ ...labels, execute: 'true' });
      const refusedWait = wait.labels({ ...labels, execute: 'false' });
      found = {
        dispatched(seconds) {
          dispatchedChild.inc();
          executedWait.observe(seconds);
        },
        rejected(reason, seconds) {
          rejected.inc({ ...labels, reason });
          refusedWait.observe(seconds);
        },
        inQueue: (delta) => inQueueChild.inc(delta),
        executing: (delta) => executingChild.inc(delta),
      };
      cache.set(key, found);
    }
    return found;
  };
}
