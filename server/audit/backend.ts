/**
 * Backends and what stands between them and the requests: each backend gets its own bounded
 * buffer (server/audit/bounded-buffer.ts) sized and batched by its mode's flags, and the events
 * it loses, dropped for a full buffer or failed in sending, are counted in
 * `apiserver_audit_error_total{plugin}` (`buffered` for drops in batch mode, as the reference's
 * buffered backend names them; the backend's own name otherwise).
 */
import type { AuditFlags } from '../config/flags';
import type { ApiserverMetrics } from '../metrics/apiserver-metrics';
import { BoundedBuffer } from './bounded-buffer';
import { throttled, type ThrottleSettings } from './throttle';
import { truncatingBackend, type TruncateSettings } from './truncate';
import type { AuditEvent } from './record/event';
import type { EventSink } from './record/request-audit';
import type { AuditBackend } from './audit-backend';

/** `batch`: buffered and batched; `blocking`: each event sent at once; `blocking-strict`: and a request whose first event is lost fails. */
export type AuditMode = AuditFlags['logMode'];

export interface BufferSettings {
  readonly mode: AuditMode;
  /** `--audit-*-batch-throttle-*` in batch mode; absent: batches go as fast as the backend takes them. */
  readonly throttle?: ThrottleSettings;
  /** `--audit-*-truncate-enabled` and its sizes; absent: events go whole. */
  readonly truncate?: TruncateSettings;
  readonly bufferSize: number;
  readonly maxBatchSize: number;
  readonly maxWaitMs: number;
}

export interface AuditOutput {
  /** Hands the event to every backend; false when a blocking-strict backend could not take it. */
  readonly sink: EventSink;
  /** Sends what is buffered (for at most a few seconds) and closes the backends. */
  stop(): Promise<void>;
}

/** How long shutdown waits for the buffers to drain. */
const DRAIN_TIMEOUT_MS = 5_000;

/** The buffers of the blocking modes send as soon as they can, up to this many events at once. */
const BLOCKING_BATCH = 100;

export function auditOutput(
  backends: readonly { backend: AuditBackend; settings: BufferSettings }[],
  metrics: ApiserverMetrics,
): AuditOutput {
  const outputs = backends.map(({ backend: whole, settings }) => {
    const backend = settings.truncate
      ? truncatingBackend(whole, settings.truncate, (count) => metrics.auditErrors.inc({ plugin: 'truncate' }, count))
      : whole;
    const blocking = settings.mode !== 'batch';
    const buffer = new BoundedBuffer<AuditEvent>({
      bufferSize: settings.bufferSize,
      maxBatchSize: blocking ? BLOCKING_BATCH : settings.maxBatchSize,
      maxWaitMs: blocking ? 0 : settings.maxWaitMs,
      send:
        blocking || !settings.throttle
          ? (batch) => backend.send(batch)
          : throttled((batch) => backend.send(batch), settings.throttle),
      onError: (_error, batch) => metrics.auditErrors.inc({ plugin: backend.name }, batch.length),
    });
    const dropPlugin = blocking ? backend.name : 'buffered';
    return { backend, buffer, strict: settings.mode === 'blocking-strict', dropPlugin };
  });
  return {
    sink: (event) => {
      metrics.auditEvents.inc();
      let kept = true;
      for (const output of outputs) {
        if (output.buffer.push(event)) continue;
        metrics.auditErrors.inc({ plugin: output.dropPlugin });
        if (output.strict) kept = false;
      }
      return kept;
    },
    async stop() {
      // A backend that does not answer must not hold the shutdown: what it has not taken by then is lost.
      let timer: NodeJS.Timeout | undefined;
      const budget = new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)));
      await Promise.race([Promise.all(outputs.map(({ buffer }) => buffer.flush())), budget]);
      clearTimeout(timer);
      await Promise.all(outputs.map(({ backend }) => backend.close()));
    },
  };
}
