/**
 * A rolling replacement under load: one 3-member etcd, three API-server replicas on fixed
 * loopback ports behind haproxy, sharing one PKI. They start as three reference
 * kube-apiservers 1.34, are replaced one at a time by capstan replicas on the same ports (each
 * outgoing replica stopped gracefully first), then back to reference ones the same way. All
 * along, through the balancer, four writers create, update and delete ConfigMaps, fifty
 * watchers watch them (relisting after a 410, as reflectors do), and the reference
 * kube-controller-manager runs its controllers.
 * Afterwards, compared with the store's own history (a store watch on the same etcd):
 * - every acknowledged write is in the history, and the final state holds each name's last one;
 * - every watcher saw every event exactly once, in order, or, after a 410 and a list, every
 *   event after the list exactly once, in order: none silently missed one;
 * - few writes failed during the switchovers;
 * - the controller manager kept running, and still does its work through the new replicas.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEtcdStore } from '../../storage/etcd/etcd-store';
import type { RevisionedStore } from '../../storage/store';
import { startEtcdCluster, type EtcdCluster } from '../helpers/etcd';
import { freePort } from '../helpers/ports';
import {
  buildReferenceApiserver,
  serviceAccountKeyFlags,
  startReferenceApiserver,
} from '../helpers/reference-apiserver';
import { ensureBuilt } from '../helpers/capstan-process';
import { credentialsOf, startServer, type KubeconfigCredentials } from '../helpers/server';
import { requestOnce, type HttpAnswer } from './cluster';
import { startHaproxy, type Haproxy } from './haproxy';
import { startControllerManager, type ControllerManager } from './reference-controllers';
import { startReconnectingWatcher, type ObservedEvent, type ReconnectingWatcher } from './watch-client';
import { firstDifference, lostWrites, recordHistory, Writer } from './write-history';

/** The reference binary is built from its Go module when the cache lacks it. */
const BUILD_TIMEOUT_MS = 40 * 60_000;

jest.setTimeout(420_000);
beforeAll(() => buildReferenceApiserver(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);

const MAKE_CERTS = join(__dirname, '..', '..', 'deploy', 'pki', 'make-certs.sh');
const NAMESPACE = 'rolling';
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const KEY_PREFIX = `/registry/configmaps/${NAMESPACE}/`;
const WRITERS = 4;
const NAMES_PER_WRITER = 6;
const WATCHERS = 50;
/**
 * Flags both kinds of replica get: those of the one-etcd test, and a shutdown delay longer than
 * haproxy's checks take to mark a stopping replica down (2 × 300 ms), as a deployment's is.
 */
const COMMON_FLAGS = [
  '--service-cluster-ip-range=10.96.0.0/12',
  '--disable-admission-plugins=ServiceAccount',
  '--shutdown-delay-duration=1s',
];
/**
 * The reference alone: it ends its watches within this grace period as it shuts down. Without
 * it (the default, 0) it leaves them open and waits up to its request timeout (60 s) for them,
 * and the helper's SIGKILL after 10 s would end it instead (capstan ends its watches at once).
 */
const REFERENCE_FLAGS = ['--shutdown-watch-termination-grace-period=2s'];
/** How long each state of the cluster lasts under the load (what it must survive), not a condition awaited. */
const SETTLE_MS = 3_000;
const CATCH_UP_MS = 30_000;
const SERVICE_ACCOUNT_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Kind = 'reference' | 'capstan';

interface Replica {
  readonly kind: Kind;
  stop(): Promise<void>;
}

let workDir: string;
let pkiDir: string;
let etcd: EtcdCluster | undefined;
let ports: number[];
const replicas: (Replica | undefined)[] = [];
let balancer: Haproxy | undefined;
let controllerManager: ControllerManager | undefined;
let oracle: RevisionedStore | undefined;
let credentials: KubeconfigCredentials;

async function startReplica(kind: Kind, i: number): Promise<Replica> {
  const etcdServers = etcd!.endpoints;
  if (kind === 'reference') {
    const reference = await startReferenceApiserver({
      etcdServers,
      pkiDir,
      flags: [...COMMON_FLAGS, ...REFERENCE_FLAGS],
      port: ports[i],
    });
    return { kind, stop: () => reference.stop() };
  }
  const capstan = await startServer({
    etcdServers,
    pkiDir,
    flags: [
      ...serviceAccountKeyFlags(pkiDir),
      ...COMMON_FLAGS,
      // The controller manager runs the controllers: none of capstan's copies.
      '--controllers=',
      `--secure-port=${ports[i]}`,
      '--bind-address=127.0.0.1',
    ],
  });
  return { kind, stop: () => capstan.stop() };
}

/** SIGTERM to replica i (waiting for its exit), then its successor of `kind` on the same port, ready. */
async function replace(i: number, kind: Kind, stopped: () => void): Promise<void> {
  await replicas[i]?.stop();
  replicas[i] = undefined;
  stopped();
  replicas[i] = await startReplica(kind, i);
}

beforeAll(async () => {
  // Now, not on the first capstan's start: a build then would stall the writers and watchers.
  ensureBuilt();
  workDir = mkdtempSync(join(tmpdir(), 'rolling-'));
  pkiDir = join(workDir, 'pki');
  execFileSync('sh', [MAKE_CERTS, pkiDir], { stdio: 'ignore' });
  credentials = credentialsOf(join(pkiDir, 'admin.kubeconfig'));
  etcd = await startEtcdCluster(3);
  ports = await Promise.all([0, 1, 2].map(() => freePort()));
  // One at a time: the first writes the bootstrap objects the others then find.
  for (let i = 0; i < 3; i++) replicas.push(await startReplica('reference', i));
  balancer = await startHaproxy({ port: await freePort(), replicaPorts: ports });
  controllerManager = await startControllerManager({ url: balancer.url, pkiDir, dir: workDir });
  oracle = await openEtcdStore({ endpoints: etcd.endpoints });
}, 300_000);

afterAll(async () => {
  await controllerManager?.stop();
  await balancer?.stop();
  await Promise.all(replicas.map((replica) => replica?.stop()));
  await oracle?.close();
  await etcd?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/**
 * What `watcher` saw that it should not have: undefined when it saw `history` exactly, or, after
 * each 410 and list, up to the 410 a prefix of what it was to see, and from the list on every
 * event after the list's version (a prefix of them, until the next 410).
 */
function deviation(watcher: ReconnectingWatcher, history: readonly ObservedEvent[]): string | undefined {
  let expected = history;
  let start = 0;
  for (let segment = 0; segment <= watcher.relists.length; segment++) {
    const relist = watcher.relists[segment];
    const seen = watcher.events.slice(start, relist ? relist.afterEvents : watcher.events.length);
    const due = relist ? expected.slice(0, seen.length) : expected;
    if (JSON.stringify(seen) !== JSON.stringify(due)) return `after ${segment} relists: ${firstDifference(due, seen)}`;
    if (!relist) return undefined;
    expected = history.filter((event) => Number(event.resourceVersion) > Number(relist.resourceVersion));
    start = relist.afterEvents;
  }
  return undefined;
}

it('keeps every acknowledged write and every watch event through a rolling replacement, reference to capstan and back', async () => {
  const lb = balancer!.url;
  const request = (method: string, path: string, body?: unknown): Promise<HttpAnswer> =>
    requestOnce(credentials, lb, method, path, body);
  const created = await request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NAMESPACE },
  });
  expect(created.status).toBe(201);
  const startRevision = Number(JSON.parse((await request('GET', CONFIGMAPS)).body).metadata.resourceVersion);
  const history = recordHistory(oracle!, KEY_PREFIX, startRevision + 1);
  const watchers = Array.from({ length: WATCHERS }, () =>
    startReconnectingWatcher({
      url: lb,
      credentials,
      path: CONFIGMAPS,
      resourceVersion: String(startRevision),
      relistOnExpiry: true,
    }),
  );
  const writers = Array.from(
    { length: WRITERS },
    (_, w) =>
      new Writer({
        request,
        namespace: NAMESPACE,
        names: Array.from({ length: NAMES_PER_WRITER }, (_, n) => `w${w}-cm-${n}`),
      }),
  );
  const began = Date.now();
  const phases: Record<string, number> = {};
  const phase = (name: string) => (phases[name] = Date.now() - began);
  writers.forEach((writer) => writer.start());
  await sleep(SETTLE_MS);

  for (const kind of ['capstan', 'reference'] as const) {
    for (let i = 0; i < 3; i++) {
      phase(`replica ${i} to ${kind}`);
      await replace(i, kind, () => phase(`replica ${i} stopped for ${kind}`));
      phase(`replica ${i} is ${kind}`);
      await sleep(SETTLE_MS);
    }
  }
  expect(replicas.map((replica) => replica?.kind)).toEqual(['reference', 'reference', 'reference']);
  await Promise.all(writers.map((writer) => writer.stop()));
  phase('writes stopped');

  // Let the watchers and the history catch up with the last event, then stop them.
  const caughtUp = () =>
    history.events.length > 0 &&
    watchers.every((watcher) => watcher.events.at(-1)?.resourceVersion === history.events.at(-1)?.resourceVersion);
  for (let i = 0; i < CATCH_UP_MS / 100 && !caughtUp(); i++) await sleep(100);
  await Promise.all(watchers.map((watcher) => watcher.stop()));
  history.watch.close();
  phase('watchers stopped');

  const acknowledged = writers.flatMap((writer) => writer.acknowledged);
  const failures = writers.flatMap((writer) => writer.failures);
  const relisted = watchers.filter((watcher) => watcher.relists.length > 0);
  console.log(
    [
      `writes acknowledged ${acknowledged.length}, failed ${failures.length}; history events ${history.events.length}`,
      `watchers that relisted after a 410: ${relisted.length} (${relisted.map((w) => w.relists.length).join('/')} lists)`,
      `watcher streams: ${watchers.map((watcher) => watcher.streams.length).join('/')}`,
      `write failures: ${JSON.stringify(failures.slice(0, 10))}`,
      `slowest writes (ms): ${JSON.stringify(writers.map((writer) => writer.slowest()[0]))}`,
      `phases (ms since the writers started): ${JSON.stringify(phases)}`,
    ].join('\n'),
  );

  expect(history.errors).toEqual([]);
  expect(acknowledged.length).toBeGreaterThan(200);
  // A write in flight on a replica as it goes may fail (its outcome unknown, as with the reference alone); few do.
  expect(failures.length).toBeLessThan((acknowledged.length + failures.length) / 50);
  for (const writer of writers) expect(lostWrites(writer.acknowledged, history.events)).toEqual([]);

  // The final state holds each name's last acknowledged write (or a later one).
  const finalList = JSON.parse((await request('GET', CONFIGMAPS)).body) as {
    items: { metadata: { name: string; resourceVersion: string } }[];
  };
  const finalVersion = new Map(
    finalList.items.map((item) => [item.metadata.name, Number(item.metadata.resourceVersion)]),
  );
  for (const writer of writers) {
    const names = new Set(writer.acknowledged.map((ack) => ack.name));
    for (const name of names) {
      const last = writer.acknowledged.filter((ack) => ack.name === name).at(-1)!;
      const later = history.events.some(
        (event) => event.name === name && Number(event.resourceVersion) > Number(last.resourceVersion),
      );
      if (!later) expect({ name, present: finalVersion.has(name) }).toEqual({ name, present: last.op !== 'delete' });
      if (last.op !== 'delete' && finalVersion.has(name))
        expect(finalVersion.get(name)!).toBeGreaterThanOrEqual(Number(last.resourceVersion));
    }
  }

  // Every watcher saw the history exactly, or exactly from each list on after a 410; no other error.
  for (const [i, watcher] of watchers.entries()) {
    expect({ watcher: i, errors: watcher.errors }).toEqual({ watcher: i, errors: [] });
    expect({ watcher: i, deviation: deviation(watcher, history.events) }).toEqual({ watcher: i, deviation: undefined });
  }

  // The controller manager ran through it all, and works through the new replicas: a new
  // namespace gets its default ServiceAccount.
  expect(controllerManager!.running()).toBe(true);
  const after = `${NAMESPACE}-after`;
  expect((await request('POST', '/api/v1/namespaces', { metadata: { name: after } })).status).toBe(201);
  let account: HttpAnswer | undefined;
  for (let i = 0; i < SERVICE_ACCOUNT_TIMEOUT_MS / 500 && account?.status !== 200; i++) {
    if (i > 0) await sleep(500);
    account = await request('GET', `/api/v1/namespaces/${after}/serviceaccounts/default`).catch(() => undefined);
  }
  expect(account?.status).toBe(200);
});
