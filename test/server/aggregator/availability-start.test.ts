/**
 * The APIService availability hooks (`apiservice-status-local-available-controller` and
 * `...-remote-...`) start their controllers and are done, as the reference's are: a replica
 * starting beside a stored APIService whose extension server never answers is ready while that
 * check still waits (it gives up after 5 s), not after it.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startServer } from '../../helpers/server';
import { waitUntil } from '../../helpers/wait-for';

jest.setTimeout(120_000);

let etcd: EtcdServer;
let silent: Server;
/** The connections the silent server took, when, and when each ended. */
const connections: { socket: Socket; at: number; endedAt?: number }[] = [];

beforeAll(async () => {
  etcd = await startEtcd();
  // Takes connections and never says a word: not even a TLS handshake.
  silent = createServer((socket) => {
    const connection: (typeof connections)[number] = { socket, at: performance.now() };
    connections.push(connection);
    socket.on('close', () => (connection.endedAt = performance.now()));
    // Read (and drop) what comes, or the peer's end is never seen.
    socket.resume();
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const { socket } of connections) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  await etcd?.stop();
});

it('is ready while the check of an extension server that never answers still waits', async () => {
  const options = { etcdServers: etcd.endpoints, etcdPrefix: '/availability-start' };
  const first = await startServer(options);
  const manifests = [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'silent', namespace: 'default' },
      spec: { ports: [{ name: 'https', port: 443 }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'silent-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'silent' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'https', port: (silent.address() as AddressInfo).port, protocol: 'TCP' }],
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.silent.example.com' },
      spec: {
        group: 'silent.example.com',
        version: 'v1',
        groupPriorityMinimum: 100,
        versionPriority: 100,
        service: { namespace: 'default', name: 'silent' },
        insecureSkipTLSVerify: true,
      },
    },
  ];
  const applied = await first.kubectl(['apply', '-f', '-'], {
    input: manifests.map((manifest) => JSON.stringify(manifest)).join('\n---\n'),
  });
  expect(applied.stderr).toBe('');
  await waitUntil('the first server to check the extension server', () => connections.length > 0, 30_000, 20);
  await first.stop();

  const before = connections.length;
  // startServer resolves once /readyz answers 200.
  const second = await startServer(options);
  const readyAt = performance.now();
  try {
    // The check did run, and gives up on its own 5 s after it began.
    await waitUntil('the second server to check the extension server', () => connections.length > before, 30_000, 20);
    const check = connections[before];
    await waitUntil('the check to give up', () => check.endedAt !== undefined, 30_000, 20);
    expect(check.endedAt! - check.at).toBeGreaterThanOrEqual(4_500);
    // Ready long before then: waiting for the check would have made it at least that late.
    expect(readyAt).toBeLessThan(check.endedAt!);
    expect(readyAt - check.at).toBeLessThan(4_000);
  } finally {
    await second.stop();
  }
});
