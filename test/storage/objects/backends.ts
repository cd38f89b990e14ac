/**
 * The two real store backends the object-layer tests run against (`describe.each(BACKENDS)`).
 * Each test file starts one backend; tests keep apart by using their own key prefixes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../../storage/store';
import { startEtcd } from '../../helpers/etcd';

export interface RunningBackend {
  /**
   * A client of the shared store, as another replica would have. SQLite serves a single
   * replica, so there every client is the one store.
   */
  connect(): Promise<RevisionedStore>;
  stop(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  start(): Promise<RunningBackend>;
}

const sqlite: Backend = {
  name: 'sqlite',
  async start() {
    const dir = await mkdtemp(join(tmpdir(), 'capstan-objects-'));
    const store = await openSqliteStore({ path: join(dir, 'store.db') });
    return {
      connect: async () => store,
      stop: async () => {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

const etcd: Backend = {
  name: 'etcd',
  async start() {
    const server = await startEtcd();
    const clients: RevisionedStore[] = [];
    return {
      connect: async () => {
        const client = await openEtcdStore({ endpoints: server.endpoints });
        clients.push(client);
        return client;
      },
      stop: async () => {
        await Promise.all(clients.map((client) => client.close()));
        await server.stop();
      },
    };
  },
};

export const BACKENDS: Backend[] = [sqlite, etcd];

let prefixCounter = 0;
/** A key prefix no other test in this process uses. */
export function freshPrefix(resource: string): string {
  prefixCounter += 1;
  return `/registry-${process.pid}-${prefixCounter}/${resource}`;
}
