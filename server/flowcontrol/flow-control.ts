/**
 * API Priority and Fairness on one replica: the current configuration (classifier and one
 * `LevelQueues` per Limited level, with seats shared out of the server's concurrency limit in
 * proportion to the levels' nominalConcurrencyShares), and the dispatch of a classified request
 * (run, wait, or refuse), with the metrics. Exempt levels run everything at once.
 */
import type { Registry } from 'prom-client';
import type { KubeObject } from '../../api/objects';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from '../../api/flowcontrol-bootstrap';
import { FlowClassifier, type Classification, type FlowRequest } from './classifier';
import { flowcontrolMetrics, type FlowMetrics } from './flowcontrol-metrics';
import { LevelQueues, type LevelSettings, type RejectReason } from './level-queues';

interface LevelSpec {
  readonly type?: string;
  readonly limited?: {
    readonly nominalConcurrencyShares?: number;
    readonly limitResponse?: {
      readonly type?: string;
      readonly queuing?: { queues?: number; handSize?: number; queueLengthLimit?: number };
    };
  };
  readonly exempt?: { readonly nominalConcurrencyShares?: number };
}

export interface DispatchHandlers {
  /** The request may run; call `done` once when it no longer holds its seat. */
  execute(done: () => void): void;
  /** The request is refused (429). */
  reject(reason: RejectReason): void;
}

function levelSpec(level: KubeObject): LevelSpec {
  return (level.spec as LevelSpec | undefined) ?? {};
}

function sharesOf(spec: LevelSpec): number {
  return spec.type === 'Exempt'
    ? (spec.exempt?.nominalConcurrencyShares ?? 0)
    : (spec.limited?.nominalConcurrencyShares ?? 30);
}

export class FlowControl {
  private classifier: FlowClassifier;
  private readonly queues = new Map<string, LevelQueues>();
  /** Each level's nominal seats (the `apiserver_flowcontrol_nominal_limit_seats` gauge). */
  private nominalLimits: ReadonlyMap<string, number> = new Map();
  private readonly metricsFor: (schema: string, level: string) => FlowMetrics;

  constructor(
    private readonly options: {
      readonly serverConcurrencyLimit: number;
      readonly registry: Registry;
      readonly showHiddenMetrics?: boolean;
    },
  ) {
    this.metricsFor = flowcontrolMetrics(options.registry, () => this.nominalLimits, options.showHiddenMetrics);
    this.classifier = this.configure(MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS);
  }

  /** Takes a new configuration; requests waiting at a level that remains keep waiting there. */
  reconfigure(schemas: Iterable<KubeObject>, levels: Iterable<KubeObject>): void {
    this.classifier = this.configure(schemas, levels);
  }

  private configure(schemas: Iterable<KubeObject>, levelObjects: Iterable<KubeObject>): FlowClassifier {
    const levels = new Map([...levelObjects].map((level) => [String(level.metadata.name), level]));
    // Without its mandatory objects (deleted a moment ago), the server still has somewhere to put requests.
    for (const mandatory of MANDATORY_PRIORITY_LEVELS)
      if (!levels.has(String(mandatory.metadata.name))) levels.set(String(mandatory.metadata.name), mandatory);
    const totalShares = [...levels.values()].reduce((sum, level) => sum + sharesOf(levelSpec(level)), 0);
    this.nominalLimits = new Map(
      [...levels].map(([name, level]) => [name, this.nominalLimitOf(sharesOf(levelSpec(level)), totalShares)]),
    );
    for (const [name, level] of levels) {
      const spec = levelSpec(level);
      if (spec.type === 'Exempt') {
        this.queues.delete(name);
        continue;
      }
      const settings = this.settingsOf(spec, totalShares);
      const existing = this.queues.get(name);
      if (existing === undefined) this.queues.set(name, new LevelQueues(settings));
      else existing.configure(settings);
    }
    // A level that went away keeps its queues until its requests are done; new ones cannot reach it.
    for (const [name, queues] of this.queues)
      if (!levels.has(name) && queues.executing === 0 && queues.waiting === 0) this.queues.delete(name);
    const catchAll = MANDATORY_FLOW_SCHEMAS[1];
    return new FlowClassifier(schemas, levels, { schema: catchAll, level: levels.get('catch-all')! });
  }

  /** NominalCL = ceil(ServerCL × NCS / ΣNCS), as the reference shares the server's seats. */
  private nominalLimitOf(shares: number, totalShares: number): number {
    return totalShares === 0 ? 0 : Math.ceil((this.options.serverConcurrencyLimit * shares) / totalShares);
  }

  private settingsOf(spec: LevelSpec, totalShares: number): LevelSettings {
    const concurrencyLimit = this.nominalLimitOf(sharesOf(spec), totalShares);
    const response = spec.limited?.limitResponse;
    if (response?.type !== 'Queue') return { concurrencyLimit };
    const queuing = response.queuing ?? {};
    return {
      concurrencyLimit,
      queuing: {
        queues: queuing.queues ?? 64,
        handSize: queuing.handSize ?? 8,
        queueLengthLimit: queuing.queueLengthLimit ?? 50,
      },
    };
  }

  classify(request: FlowRequest): Classification {
    return this.classifier.classify(request);
  }

  /**
   * Runs, queues or refuses the request; a queued one gives up after `waitLimitMs` (refused as
   * `time-out`). Returns what to call when the client goes away while it waits; undefined when
   * the request did not wait.
   */
  dispatch(classification: Classification, waitLimitMs: number, handlers: DispatchHandlers): (() => void) | undefined {
    const levelName = String(classification.level.metadata.name);
    const metrics = this.metricsFor(String(classification.schema.metadata.name), levelName);
    const queues = this.queues.get(levelName);
    const arrivedAt = performance.now();
    const run = () => {
      metrics.dispatched((performance.now() - arrivedAt) / 1000);
      metrics.executing(1);
      let done = false;
      handlers.execute(() => {
        if (done) return;
        done = true;
        metrics.executing(-1);
        queues?.finish();
      });
    };
    if (queues === undefined) {
      run();
      return undefined;
    }
    let waiting = false;
    let timer: NodeJS.Timeout | undefined;
    const admission = queues.admit(classification.flowKey, () => {
      if (waiting) {
        waiting = false;
        clearTimeout(timer);
        metrics.inQueue(-1);
      }
      run();
    });
    if (admission.outcome === 'rejected') {
      metrics.rejected(admission.reason, 0);
      handlers.reject(admission.reason);
      return undefined;
    }
    if (admission.outcome === 'dispatched') return undefined;
    waiting = true;
    metrics.inQueue(1);
    const giveUp = (reason: RejectReason) => {
      if (!waiting || !admission.cancel()) return;
      waiting = false;
      clearTimeout(timer);
      metrics.inQueue(-1);
      metrics.rejected(reason, (performance.now() - arrivedAt) / 1000);
      if (reason === 'time-out') handlers.reject(reason);
    };
    timer = setTimeout(() => giveUp('time-out'), waitLimitMs);
    return () => giveUp('cancelled');
  }
}
