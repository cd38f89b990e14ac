/**
 * Where the resources are stored: the store of `--etcd-servers` (or the embedded SQLite file),
 * and one etcd store per distinct server set of `--etcd-servers-overrides`, which holds the
 * resources named for it (`/events#https://etcd-events:2379`). A resource's objects, watches,
 * resource versions and compaction are all its store's, as in the reference, where each
 * override is a storage configuration of its own.
 *
 * TLS follows the reference's etcd client: the `--etcd-*file` files are read whatever the
 * endpoints' scheme (a missing file fails the start), and are used for https endpoints only;
 * https without `--etcd-cafile` verifies against the system's roots.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSqliteStore } from '../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../storage/store';
import { StoreUnavailableError } from '../storage/errors';
import { FlagError, type ServerOptions } from './config/flags';

/** The TLS material of the `--etcd-*file` flags, as file contents. */
export interface EtcdTls {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/** A store: the main one holds every resource not overridden to another. */
export interface StoreLocation {
  readonly store: RevisionedStore;
  /** The etcd URLs; empty for the embedded store. */
  readonly servers: readonly string[];
}

export interface StoreLocations {
  readonly main: StoreLocation;
  /** One per distinct server set of `--etcd-servers-overrides`, in the order first named. */
  readonly overrides: readonly StoreLocation[];
  /** The location of the resource whose storage is first named `group/resource`. */
  locationOf(groupResource: { readonly group: string; readonly resource: string }): StoreLocation;
  close(): Promise<void>;
}

export async function readEtcdTls(
  options: Pick<ServerOptions, 'etcdCaFile' | 'etcdCertFile' | 'etcdKeyFile'>,
): Promise<EtcdTls> {
  const read = (path: string | undefined) => (path ? readFile(path) : Promise.resolve(undefined));
  const [ca, cert, key] = await Promise.all([
    read(options.etcdCaFile),
    read(options.etcdCertFile),
    read(options.etcdKeyFile),
  ]);
  return { ca, cert, key };
}

/**
 * The etcd client's transport for `servers`: TLS for https URLs, plain for http ones, as the
 * reference's client picks by the URL's scheme. The client takes one transport for all its
 * members, so a mix is refused at start.
 */
export function etcdTransport(servers: readonly string[], tls: EtcdTls): { readonly tls?: EtcdTls } {
  const secure = servers.filter((server) => server.startsWith('https://')).length;
  if (secure === 0) return {};
  if (secure < servers.length)
    throw new FlagError(`etcd servers ${servers.join(',')} mix http and https URLs; use one scheme`);
  return { tls };
}

async function openEtcd(
  servers: readonly string[],
  tls: EtcdTls,
  flag: string,
  leaseReuseDurationSeconds: number,
): Promise<RevisionedStore> {
  // Loaded only for etcd: code an embedded-store server never uses.
  const { openEtcdStore } = await import('../storage/etcd/etcd-store');
  try {
    return await openEtcdStore({ endpoints: [...servers], ...etcdTransport(servers, tls), leaseReuseDurationSeconds });
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    // Which etcd did not answer when there are several, and what to fix when TLS failed.
    const where = flag === '--etcd-servers' ? '' : `${servers.join(',')} (${flag}): `;
    throw new StoreUnavailableError(`${where}${explainTlsFailure(error.message) ?? error.message}`, { cause: error });
  }
}

/**
 * OpenSSL's words for a failed handshake, as the flag to look at: gRPC reports them as a long
 * line of library internals.
 */
export function explainTlsFailure(message: string): string | undefined {
  const alert = /alert (bad certificate|certificate required|unknown ca|certificate unknown|certificate expired)/.exec(
    message,
  );
  if (alert)
    return `etcd refused the TLS handshake (${alert[0]}): it wants a client certificate signed by its --trusted-ca-file (--etcd-certfile, --etcd-keyfile)`;
  const unverified =
    /unable to verify the first certificate|self[- ]signed certificate|unable to get local issuer certificate|certificate has expired|Hostname\/IP does not match certificate's altnames[^;]*/.exec(
      message,
    );
  if (unverified)
    return `etcd's serving certificate is not trusted (${unverified[0]}): --etcd-cafile must hold the CA that signed it, for the address of the URL`;
  return undefined;
}

/** The same servers in another order are the same location, as the reference dedupes its override health checks. */
function serverSetKey(servers: readonly string[]): string {
  return [...servers].sort().join(';');
}

export async function openStoreLocations(options: ServerOptions): Promise<StoreLocations> {
  if (options.etcdServers.length === 0) {
    const store = await openSqliteStore({ path: join(options.dataDir, 'capstan.db') });
    const main: StoreLocation = { store, servers: [] };
    return { main, overrides: [], locationOf: () => main, close: () => store.close() };
  }
  const tls = await readEtcdTls(options);
  const bySet = new Map<string, readonly string[]>();
  for (const { servers } of options.etcdServersOverrides)
    if (!bySet.has(serverSetKey(servers))) bySet.set(serverSetKey(servers), servers);
  const opened: RevisionedStore[] = [];
  const closeAll = () => Promise.all(opened.map((store) => store.close())).then(() => undefined);
  try {
    const open = async (servers: readonly string[], flag: string) => {
      const store = await openEtcd(servers, tls, flag, options.leaseReuseDurationSeconds);
      opened.push(store);
      return store;
    };
    const main: StoreLocation = {
      store: await open(options.etcdServers, '--etcd-servers'),
      servers: options.etcdServers,
    };
    const overrides: StoreLocation[] = [];
    for (const servers of bySet.values())
      overrides.push({ store: await open(servers, '--etcd-servers-overrides'), servers });
    const byResource = new Map<string, StoreLocation>();
    // A later override of the same resource wins, as the reference's last SetEtcdLocation does.
    for (const { group, resource, servers } of options.etcdServersOverrides) {
      byResource.set(
        `${group}/${resource}`,
        overrides.find((location) => serverSetKey(location.servers) === serverSetKey(servers))!,
      );
    }
    return {
      main,
      overrides,
      locationOf: ({ group, resource }) => byResource.get(`${group}/${resource}`) ?? main,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
