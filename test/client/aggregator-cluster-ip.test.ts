/**
 * Without `--enable-aggregator-routing`, as the reference by default, an APIService's Service is
 * reached at its cluster IP and port, which a node's kube-proxy routes. Here the server runs in a
 * network namespace of the test's own (test/helpers/network-namespace.ts) whose loopback holds
 * the Service's cluster IP, where the extension server answers; its EndpointSlice names an
 * address where nothing listens, so only the cluster IP leads to it. The availability checks
 * still ask for a ready endpoint first, and a headless Service cannot be routed to. A redirect
 * the extension server answers is a 502 unless `--aggregator-reject-forwarding-redirect=false`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf } from '../../server/pki/certificates';
import { createNetworkNamespace, type NetworkNamespace } from '../helpers/network-namespace';
import { startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait-for';

jest.setTimeout(120_000);

const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'cip.example.test/v1',
  resources: [{ name: 'things', singularName: 'thing', namespaced: false, kind: 'Thing', verbs: ['get', 'list'] }],
};
/** Where the EndpointSlices send the port: nothing listens there. */
const ENDPOINT_PORT = 8443;

interface Condition {
  status: string;
  reason: string;
  message: string;
}

let dir: string;
let server: TestServer;
let ns: NetworkNamespace;
let extension: Server;
let caBundle: string;
/** The cluster IP the extension server answers at, inside the namespace. */
let servedClusterIP: string;

async function availableCondition(name: string, on = server): Promise<Condition | undefined> {
  const answer = await on.request('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
  if (answer.status !== 200) return undefined;
  return answer
    .json<{ status?: { conditions?: (Condition & { type: string })[] } }>()
    .status?.conditions?.find((condition) => condition.type === 'Available');
}

async function create(on: TestServer, path: string, object: object): Promise<Record<string, any>> {
  const answer = await on.request('POST', path, {
    body: JSON.stringify(object),
    headers: { 'content-type': 'application/json' },
  });
  expect(answer.status).toBe(201);
  return answer.json();
}

/** A Service of `spec`, a ready endpoint for its port, and an APIService of `group` behind it. */
async function register(name: string, group: string, spec: object, on = server): Promise<Record<string, any>> {
  const service = await create(on, '/api/v1/namespaces/default/services', {
    metadata: { name },
    spec: { ...spec, ports: [{ name: 'https', port: 443, targetPort: ENDPOINT_PORT }] },
  });
  await create(on, '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
    metadata: { name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [ns.address], conditions: { ready: true } }],
    ports: [{ name: 'https', port: ENDPOINT_PORT, protocol: 'TCP' }],
  });
  await create(on, '/apis/apiregistration.k8s.io/v1/apiservices', {
    metadata: { name: `v1.${group}` },
    spec: {
      group,
      version: 'v1',
      groupPriorityMinimum: 100,
      versionPriority: 100,
      service: { namespace: 'default', name },
      caBundle,
    },
  });
  return service;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-cluster-ip-'));
  const ca = await issueCa({ commonName: 'cluster-ip-api-ca', validDays: 1 });
  const serving = await issueLeaf({
    ca,
    subject: 'CN=cluster-ip-api',
    usage: 'server',
    dnsNames: ['cluster-ip-api.default.svc'],
    validDays: 1,
  });
  caBundle = Buffer.from(ca.certPem).toString('base64');
  extension = createHttpsServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    if ((req.url ?? '').startsWith('/apis/cip.example.test/v1/things/moved')) {
      res.writeHead(302, { Location: 'https://elsewhere.example.test/' });
      res.end();
      return;
    }
    const found = (req.url ?? '').split('?')[0] === '/apis/cip.example.test/v1';
    res.writeHead(found ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(found ? RESOURCE_LIST : { kind: 'Status', apiVersion: 'v1', code: 404 }));
  });
  ns = await createNetworkNamespace(dir);
  server = await startServer({ network: ns });
});

afterAll(async () => {
  await server?.stop();
  extension?.closeAllConnections();
  await ns?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an APIService is reached at its Service’s cluster IP, not at its endpoints', async () => {
  const service = await register('cluster-ip-api', 'cip.example.test', {});
  const clusterIP = service.spec.clusterIP as string;
  servedClusterIP = clusterIP;
  await ns.addAddress(clusterIP);
  await ns.serveInside(443, extension, clusterIP);
  const condition = await waitFor('the APIService to be available', async () => {
    const available = await availableCondition('v1.cip.example.test');
    return available?.status === 'True' ? available : undefined;
  });
  expect(condition).toMatchObject({ reason: 'Passed', message: 'all checks passed' });
  const listed = await server.request('GET', '/apis/cip.example.test/v1');
  expect(listed.status).toBe(200);
  expect(listed.json()).toEqual(RESOURCE_LIST);
});

test('a headless Service cannot be routed to, in the reference’s words', async () => {
  await register('headless-api', 'headless.example.test', { clusterIP: 'None' });
  const condition = await waitFor('the APIService to be checked', async () => {
    const available = await availableCondition('v1.headless.example.test');
    return available?.reason === 'FailedDiscoveryCheck' ? available : undefined;
  });
  expect(condition).toMatchObject({
    status: 'False',
    reason: 'FailedDiscoveryCheck',
    message: 'cannot route to service with ClusterIP "None"',
  });
  expect((await server.request('GET', '/apis/headless.example.test/v1')).status).toBe(503);
});

test('a redirect from the extension server is a 502, or passed on when the flag says so', async () => {
  const refused = await server.request('GET', '/apis/cip.example.test/v1/things/moved');
  expect(refused.status).toBe(502);
  expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(refused.body).toBe('the backend attempted to redirect this request, which is not permitted');
  expect(refused.headers.location).toBeUndefined();

  const passing = await startServer({ network: ns, flags: ['--aggregator-reject-forwarding-redirect=false'] });
  try {
    // The same Service and address: the namespace's cluster IP already serves the extension.
    await register('cluster-ip-api', 'cip.example.test', { clusterIP: servedClusterIP }, passing);
    await waitFor('the APIService to be available', async () =>
      (await availableCondition('v1.cip.example.test', passing))?.status === 'True' ? true : undefined,
    );
    const passed = await passing.request('GET', '/apis/cip.example.test/v1/things/moved');
    expect(passed.status).toBe(302);
    expect(passed.headers.location).toBe('https://elsewhere.example.test/');
  } finally {
    await passing.stop();
  }
});
