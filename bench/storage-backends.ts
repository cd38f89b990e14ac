/**
 * The two backends the storage benchmark runs against, each opened fresh and closed with
 * everything it started: SQLite in a temp dir (on disk, as `capstan` runs alone) and a real
 * etcd process (data on a tmpfs, as in the tests). An open backend has an address another
 * process can open it at (see cache-memory.ts).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { RevisionedStore } from '../storage/store';
// The tests' etcd launcher (compiled into dist/ with the rest): one way to run etcd here.
import { startEtcd } from '../test/helpers/etcd';
import { scratchDir } from './scratch';

export type StoreAddress =
  { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'etcd'; readonly endpoint: string };

export interface OpenBackend {
  readonly address: StoreAddress;
  readonly store: RevisionedStore;
  /** Closes the store, stops what the backend started and removes its files. */
  close(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  /** What the figures were taken on, for the table's title. */
  describe(): string;
  open(): Promise<OpenBackend>;
}

/** Loads only the backend's own modules, as the server does, so a probe process holds one client. */
export async function openStoreAt(address: StoreAddress): Promise<RevisionedStore> {
  if (address.kind === 'sqlite')
    return (await import('../storage/sqlite/sqlite-store')).openSqliteStore({ path: address.path });
  return (await import('../storage/etcd/etcd-store')).openEtcdStore({ endpoints: [address.endpoint] });
}

/** Opens the store at `address`; `release` frees what the backend started, on close or on failure. */
async function openBackend(address: StoreAddress, release: () => Promise<void>): Promise<OpenBackend> {
  try {
    const store = await openStoreAt(address);
    return {
      address,
      store,
      close: async () => {
        await store.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

export const SQLITE_BACKEND: Backend = {
  name: 'sqlite',
  describe: () => 'SQLite (node:sqlite, WAL, file in a temp dir on disk)',
  open: async () => {
    const dir = scratchDir({ prefix: 'capstan-bench-sqlite-', inMemory: false });
    return openBackend({ kind: 'sqlite', path: join(dir.path, 'bench.db') }, () => dir.remove());
  },
};

export const ETCD_BACKEND: Backend = {
  name: 'etcd',
  describe: () => `etcd ${etcdVersion()} (one member on loopback, data on tmpfs)`,
  open: async () => {
    const server = await startEtcd();
    return openBackend({ kind: 'etcd', endpoint: server.endpoints[0] }, () => server.stop());
  },
};

function etcdVersion(): string {
  const output = execFileSync('etcd', ['--version'], { encoding: 'utf8' });
  return /etcd Version: (\S+)/.exec(output)?.[1] ?? 'unknown version';
}
