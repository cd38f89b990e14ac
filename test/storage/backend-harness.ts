/**
 * Backends under test and small tools for watching a store in a test. The conformance suite
 * runs the same cases against every entry of `backends`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEtcdStore } from '../../storage/etcd/etcd-store';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store';
import type { RevisionedStore, StoreEvent, StoreWatch, WatchRequest } from '../../storage/store';
import { EtcdServer, startEtcd } from '../helpers/etcd';
import { waitUntil } from '../helpers/wait-for';

/** A backend's environment: set up once per suite, opening as many stores as a test wants. */
export interface BackendEnvironment {
  openStore(): Promise<RevisionedStore>;
  stop(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  start(): Promise<BackendEnvironment>;
}

export const sqliteBackend: Backend = {
  name: 'sqlite',
  async start() {
    const dir = await mkdtemp(join(tmpdir(), 'capstan-sqlite-'));
    let files = 0;
    return {
      openStore: () => openSqliteStore({ path: join(dir, `store-${files++}.db`) }),
      stop: () => rm(dir, { recursive: true, force: true }),
    };
  },
};

export const etcdBackend: Backend = {
  name: 'etcd',
  async start() {
    const etcd: EtcdServer = await startEtcd();
    return {
      openStore: () => openEtcdStore({ endpoints: etcd.endpoints }),
      stop: () => etcd.stop(),
    };
  },
};

export const backends: Backend[] = [sqliteBackend, etcdBackend];

/** What a watch delivered so far, and a way to wait for more. */
export interface RecordedWatch {
  readonly events: StoreEvent[];
  /** Sizes of the `onEvents` batches, to check that batches hold whole revisions. */
  readonly progress: number[];
  readonly errors: Error[];
  readonly watch: StoreWatch;
  /** Resolves when `condition` holds; rejects after `timeoutMs`. */
  until(condition: () => boolean, timeoutMs?: number): Promise<void>;
}

export function recordWatch(
  store: RevisionedStore,
  request: Pick<WatchRequest, 'prefix' | 'fromRevision'>,
): RecordedWatch {
  const events: StoreEvent[] = [];
  const progress: number[] = [];
  const errors: Error[] = [];
  const watch = store.watch({
    ...request,
    onEvents: (batch) => events.push(...batch),
    onProgress: (revision) => progress.push(revision),
    onError: (error) => errors.push(error),
  });
  return {
    events,
    progress,
    errors,
    watch,
    until: (condition, timeoutMs = 5_000) => waitUntil('the watch to record it', condition, timeoutMs, 10),
  };
}

/**
 * A watch must deliver nothing more: waits a little and lets the caller compare. What must not
 * happen has no condition to wait for, so this one wait is a fixed time.
 */
export function settle(ms = 300): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function text(value: Buffer | undefined): string | undefined {
  return value?.toString('utf8');
}
