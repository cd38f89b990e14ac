/**
 * `--etcd-healthcheck-timeout` and `--etcd-readycheck-timeout`: how long the store's check waits
 * for etcd's answer in livez and healthz, and in readyz. With etcd frozen (SIGSTOP: its sockets
 * open, nothing answers), each check fails once its own timeout has passed.
 */
import { parseFlags } from '../../../server/config/flags';
import { startEtcdCluster, type EtcdCluster } from '../../helpers/etcd';
import { startServer, type TestServer } from '../../helpers/server';

let etcd: EtcdCluster;
let server: TestServer;

beforeAll(async () => {
  etcd = await startEtcdCluster(1);
  server = await startServer({
    etcdServers: etcd.endpoints,
    flags: ['--etcd-readycheck-timeout=300ms', '--etcd-healthcheck-timeout=3s'],
  });
}, 60_000);
afterAll(async () => {
  etcd?.members[0].resume();
  await server?.stop();
  await etcd?.stop();
});

async function timed(path: string): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const reply = await server.request('GET', path);
  return { status: reply.status, ms: Date.now() - started };
}

it('each check waits its own timeout for a store that does not answer', async () => {
  expect((await timed('/readyz/etcd-readiness')).status).toBe(200);
  etcd.members[0].pause();
  try {
    const ready = await timed('/readyz/etcd-readiness');
    expect(ready.status).toBe(500);
    expect(ready.ms).toBeLessThan(1_500);
    const live = await timed('/livez/etcd');
    expect(live.status).toBe(500);
    expect(live.ms).toBeGreaterThanOrEqual(2_900);
  } finally {
    etcd.members[0].resume();
  }
}, 30_000);

it('are 2 s by default and for 0, as the reference takes them', () => {
  const defaults = parseFlags([]);
  const zero = parseFlags(['--etcd-healthcheck-timeout=0', '--etcd-readycheck-timeout=0s']);
  for (const parsed of [defaults, zero]) {
    expect(
      'options' in parsed && [parsed.options.etcdHealthcheckTimeoutMs, parsed.options.etcdReadycheckTimeoutMs],
    ).toEqual([2_000, 2_000]);
  }
});
