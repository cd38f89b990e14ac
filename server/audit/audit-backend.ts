/**
 * What every audit backend is (the log file, the webhook) and what wraps one (truncation,
 * buffering): a named sink of event batches. Its own module, so wrappers and the assembly of
 * backends (backend.ts) each import it without importing each other.
 */
import type { AuditEvent } from './record/event';

export interface AuditBackend {
  /** The plugin name metrics carry (`log`, `webhook`). */
  readonly name: string;
  send(events: readonly AuditEvent[]): Promise<void>;
  close(): Promise<void>;
}
