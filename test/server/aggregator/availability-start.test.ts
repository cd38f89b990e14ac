/**
 * The APIService availability and OpenAPI hooks (`apiservice-status-local-available-controller`,
 * `...-remote-...`, `apiservice-openapi-controller`, `...-openapiv3-...`) start their
 * controllers and are done, as the reference's are: a replica starting beside a stored APIService
 * whose extension server does not answer is ready while the requests to it still wait (each gives
 * up after 5 s), not after them. (The discovery hook does wait, in both: an extension server
 * that answers discovery is what lets a start through there.)
 */
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { issueCa, issueLeaf } from '../../../server/pki/certificates';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startServer, type TestServer } from '../../helpers/server';
import { waitUntil } from '../../helpers/wait-for';

jest.setTimeout(120_000);

/** A request to an extension server that is never answered: when it came, and when the asker gave up. */
interface Asked {
  readonly at: number;
  endedAt?: number;
  end(): void;
}

let etcd: EtcdServer;
const servers: Server[] = [];
const asked: Asked[] = [];

/** Records a request left unanswered on `socket`, until the asker closes it. */
function recordUnanswered(socket: Socket): void {
  const request: Asked = { at: performance.now(), end: () => socket.destroy() };
  asked.push(request);
  socket.on('close', () => (request.endedAt = performance.now()));
  socket.on('error', () => undefined);
}

async function listening(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  etcd = await startEtcd();
});

afterAll(async () => {
  for (const request of asked) request.end();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await etcd?.stop();
});

/**
 * The Service and APIService of group `group`, served at 127.0.0.1:`port`: an ExternalName
 * Service, since an EndpointSlice may hold no loopback address.
 */
function extensionManifests(group: string, port: number): object[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: group, namespace: 'default' },
      spec: { type: 'ExternalName', externalName: '127.0.0.1' },
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `v1.${group}.example.com` },
      spec: {
        group: `${group}.example.com`,
        version: 'v1',
        groupPriorityMinimum: 100,
        versionPriority: 100,
        service: { namespace: 'default', name: group, port },
        insecureSkipTLSVerify: true,
      },
    },
  ];
}

/**
 * Stores `manifests` through a first server (`prefix` its own), waits for `stored`, then starts
 * a second server on the same store: when it was ready, and from where in `asked` its requests
 * to the extension server begin.
 */
async function secondStartBeside(
  prefix: string,
  manifests: object[],
  stored: (first: TestServer) => Promise<void>,
): Promise<{ readyAt: number; firstRequest: number; second: TestServer }> {
  const options = { etcdServers: etcd.endpoints, etcdPrefix: prefix };
  const first = await startServer(options);
  const applied = await first.kubectl(['apply', '-f', '-'], {
    input: manifests.map((manifest) => JSON.stringify(manifest)).join('\n---\n'),
  });
  expect(applied.stderr).toBe('');
  await stored(first);
  await first.stop();
  const firstRequest = asked.length;
  // startServer resolves once /readyz answers 200.
  const second = await startServer(options);
  return { readyAt: performance.now(), firstRequest, second };
}

/** Waits for `count` requests of the second server to end, and checks each waited about 5 s and ended after the server was ready. */
async function expectReadyBeforeRequestsEnded(
  start: { readyAt: number; firstRequest: number },
  count: number,
): Promise<void> {
  await waitUntil(
    'the second server to ask the extension server',
    () => asked.length >= start.firstRequest + count,
    30_000,
    20,
  );
  const requests = asked.slice(start.firstRequest);
  await waitUntil('each request to give up', () => requests.every(({ endedAt }) => endedAt !== undefined), 30_000, 20);
  for (const request of requests) {
    // The extension server is this process, which notes a request late when the machine is
    // busy (4,416 and 4,460 ms seen beside other suites): a second of slack, still far from at once.
    expect(request.endedAt! - request.at).toBeGreaterThanOrEqual(4_000);
    // Ready before then: waiting for the request would have made it at least that late.
    expect(start.readyAt).toBeLessThan(request.endedAt!);
  }
}

it('is ready while the availability check of an extension server that never answers still waits', async () => {
  // Takes connections and never says a word: not even a TLS handshake. (It reads what comes, or
  // the asker's end would never be seen.)
  const silent = createServer((socket) => {
    recordUnanswered(socket);
    socket.resume();
  });
  const start = await secondStartBeside(
    '/availability-start-silent',
    extensionManifests('silent', await listening(silent)),
    () => waitUntil('the first server to check the extension server', () => asked.length > 0, 30_000, 20),
  );
  try {
    await expectReadyBeforeRequestsEnded(start, 1);
  } finally {
    await start.second.stop();
  }
});

it('is ready while the OpenAPI downloads from an available extension server that answers discovery only still wait', async () => {
  const ca = await issueCa({ commonName: 'slow-openapi-ca', validDays: 1 });
  const serving = await issueLeaf({
    ca,
    subject: 'CN=slow-openapi',
    usage: 'server',
    ipAddresses: ['127.0.0.1'],
    validDays: 1,
  });
  const resources = { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'slow.example.com/v1', resources: [] };
  const slow = createHttpsServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    // The OpenAPI documents never come; everything else is answered at once.
    if (req.url?.startsWith('/openapi/')) {
      recordUnanswered(req.socket);
      return;
    }
    if (req.url === '/apis/slow.example.com/v1') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(resources));
      return;
    }
    res.writeHead(404).end();
  });
  const port = await listening(slow);
  const start = await secondStartBeside('/availability-start-slow', extensionManifests('slow', port), (first) =>
    waitUntil(
      'the APIService to be available',
      async () => {
        const answer = await first.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.slow.example.com');
        const conditions = answer.json<{ status?: { conditions?: { type: string; status: string }[] } }>().status
          ?.conditions;
        return conditions?.some(({ type, status }) => type === 'Available' && status === 'True') ?? false;
      },
      30_000,
      50,
    ),
  );
  try {
    // The OpenAPI downloads: v2, and v3's index.
    await expectReadyBeforeRequestsEnded(start, 2);
  } finally {
    await start.second.stop();
  }
});
