/**
 * `--audit-*-truncate-enabled`: in front of a backend, as the reference's truncate plugin. An
 * event larger than the maximum event size (as JSON) loses its request and response objects and
 * is annotated `audit.k8s.io/truncated: "true"`; one still too large is dropped and counted
 * (`apiserver_audit_error_total{plugin="truncate"}`). Batches are split so that none exceeds the
 * maximum batch size.
 */
import type { AuditBackend } from './audit-backend';
import { goJson, type AuditEvent } from './record/event';

export interface TruncateSettings {
  readonly maxEventSize: number;
  readonly maxBatchSize: number;
}

const TRUNCATED_ANNOTATION = 'audit.k8s.io/truncated';

function sizeOf(event: AuditEvent): number {
  return Buffer.byteLength(goJson(event));
}

/** Only events at Request or above carry objects worth removing. */
function truncated(event: AuditEvent): AuditEvent {
  const { requestObject: _request, responseObject: _response, ...rest } = event;
  return { ...rest, annotations: { ...event.annotations, [TRUNCATED_ANNOTATION]: 'true' } };
}

export function truncatingBackend(
  backend: AuditBackend,
  settings: TruncateSettings,
  onDropped: (count: number) => void,
): AuditBackend {
  return {
    name: backend.name,
    close: () => backend.close(),
    async send(events) {
      const batches: AuditEvent[][] = [];
      let batch: AuditEvent[] = [];
      let batchSize = 0;
      let dropped = 0;
      for (const original of events) {
        let event = original;
        let size = sizeOf(event);
        if (size > settings.maxEventSize && (event.level === 'Request' || event.level === 'RequestResponse')) {
          event = truncated(event);
          size = sizeOf(event);
        }
        if (size > settings.maxEventSize) {
          dropped++;
          continue;
        }
        if (batch.length > 0 && batchSize + size > settings.maxBatchSize) {
          batches.push(batch);
          batch = [];
          batchSize = 0;
        }
        batch.push(event);
        batchSize += size;
      }
      if (batch.length > 0) batches.push(batch);
      if (dropped > 0) onDropped(dropped);
      for (const each of batches) await backend.send(each);
    },
  };
}
