/**
 * Periodic compaction shared by every replica of one store, agreed through the bare key
 * `compact_rev_key` (as the reference server does, so mixed fleets agree too).
 *
 * Each tick a replica tries to write the key, conditional on it being unchanged since the
 * replica last saw it. Exactly one replica per round finds it unchanged (the first to write
 * changes it for the others); that winner compacts to the revision it remembered at its previous
 * tick, so between one and two intervals of history always survive. The losers adopt what they
 * saw and remember the current revision, so if the winner dies, whichever replica ticks next
 * finds the key as it last saw it and takes over.
 *
 * The reference compares the key's etcd `version`; our store interface exposes the mod revision
 * instead, which changes on exactly the same writes.
 */
import type { RevisionedStore } from './store';

export const COMPACT_REVISION_KEY = 'compact_rev_key';
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60 * 1000;

export interface CompactorOptions {
  readonly store: RevisionedStore;
  /** Time between ticks; 0 disables compaction. Default 5 minutes. */
  readonly intervalMs?: number;
  /** Called after this replica compacted the store to `revision`. */
  readonly onCompacted?: (revision: number) => void;
  /** A tick failed (store unreachable, ...); the next tick tries again. */
  readonly onError?: (error: Error) => void;
}

export class Compactor {
  private readonly store: RevisionedStore;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private tickInProgress: Promise<void> = Promise.resolve();
  /** Mod revision of `compact_rev_key` when this replica last saw it; 0 when it saw no key. */
  private lastSeenKeyRevision = 0;
  /** The store revision at the previous tick: what the next winning tick compacts to (0: nothing yet). */
  private rememberedRevision = 0;

  constructor(private readonly options: CompactorOptions) {
    this.store = options.store;
    this.intervalMs = options.intervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
  }

  start(): void {
    if (this.running || this.intervalMs <= 0) return;
    this.running = true;
    this.schedule();
  }

  /** Stops ticking; resolves once a tick under way has finished. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.tickInProgress;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.tickInProgress = this.tick().finally(() => {
        if (this.running) this.schedule();
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.compactIfOurTurn();
    } catch (error) {
      this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private async compactIfOurTurn(): Promise<void> {
    const target = this.rememberedRevision;
    const value = Buffer.from(String(target));
    const claim =
      this.lastSeenKeyRevision === 0
        ? await this.store.create(COMPACT_REVISION_KEY, value)
        : await this.store.update(COMPACT_REVISION_KEY, value, this.lastSeenKeyRevision);
    // Either way the next compaction point is now, one interval before the next tick.
    this.rememberedRevision = claim.revision;
    if (!claim.succeeded) {
      this.lastSeenKeyRevision = claim.kv?.modRevision ?? 0;
      return;
    }
    this.lastSeenKeyRevision = claim.revision;
    // The first round only establishes a revision to compact to next time.
    if (target === 0) return;
    await this.store.compact(target);
    this.options.onCompacted?.(target);
  }
}
