/**
 * `nodes/proxy`, `pods/proxy` and `services/proxy` with kubectl 1.33, end to end. The reference
 * proxies to no loopback address and keeps none in Endpoints, so the server, kwok (the
 * kubelet) and the backend run in a network namespace of the test's own where they meet at
 * 192.0.2.1 (test/helpers/network-namespace.ts); the backend is an HTTP server of this test,
 * relayed in. Authorization is the reference's: `get` (or `create` for a POST) on
 * `nodes/proxy`, and nothing less, lets a user through.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createNetworkNamespace, type NetworkNamespace } from '../../helpers/network-namespace';
import { startServer, type TestServer } from '../../helpers/server';
import { addSimulatedNodes, buildKwok, startKwok, type Kwok } from '../../cluster/reference-controllers';
import { waitUntil } from '../../helpers/wait-for';

const NS = '/api/v1/namespaces/default';
const JSON_BODY = { 'Content-Type': 'application/json' };
const NODE = 'kwok-node-0';
const KUBELET_PORT = 10250;
const BACKEND_PORT = 8080;

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

function backendServer(seen: Seen[]): Server {
  return createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const path = new URL(req.url ?? '/', 'http://backend').pathname;
    if (path === '/echo') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      req.pipe(res);
      return;
    }
    req.resume();
    if (path === '/page' || path === '/page-gzip') {
      const page = Buffer.from('<HTML><body><A HREF=/rewriteme class=x>test</a> <a href="rel">r</a></body></HTML>');
      const gzip = path === '/page-gzip';
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      });
      res.end(gzip ? gzipSync(page) : page);
      return;
    }
    if (path === '/redirect') {
      res.writeHead(302, { Location: '/landing?from=redirect' });
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*', 'X-Backend': 'yes' });
    res.end(`hello from the backend at ${req.url}\n`);
  });
}

describe('proxies to nodes, pods and services', () => {
  let dir: string;
  let ns: NetworkNamespace;
  let server: TestServer;
  let kwok: Kwok;
  const seen: Seen[] = [];

  beforeAll(async () => {
    buildKwok(10 * 60_000);
    dir = mkdtempSync(join(tmpdir(), 'proxy-netns-'));
    ns = await createNetworkNamespace(dir);
    server = await startServer({
      flags: ['--disable-admission-plugins=ServiceAccount', '--kubelet-preferred-address-types=InternalIP'],
      network: ns,
    });
    await ns.serveInside(BACKEND_PORT, backendServer(seen));
    kwok = startKwok(
      join(server.dataDir, 'admin.kubeconfig'),
      [`--server-address=${ns.address}:${KUBELET_PORT}`, `--node-ip=${ns.address}`, `--node-port=${KUBELET_PORT}`],
      ns.inside,
    );
    await addSimulatedNodes(server, [NODE], 60_000);
    await waitUntil('the node to report its kubelet port', async () => {
      const node = (await server.request('GET', `/api/v1/nodes/${NODE}`)).json<{
        status?: { daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
      }>();
      return node.status?.daemonEndpoints?.kubeletEndpoint?.Port === KUBELET_PORT;
    });
    const post = async (path: string, body: object) => {
      const answer = await server.request('POST', path, { body: JSON.stringify(body), headers: JSON_BODY });
      if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${answer.body}`);
    };
    await post(`${NS}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'backend' },
      spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: BACKEND_PORT }] }] },
    });
    const status = { status: { podIP: ns.address, podIPs: [{ ip: ns.address }] } };
    expect(
      (
        await server.request('PATCH', `${NS}/pods/backend/status`, {
          body: JSON.stringify(status),
          headers: { 'Content-Type': 'application/merge-patch+json' },
        })
      ).status,
    ).toBe(200);
    await post(`${NS}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { ports: [{ name: 'http', port: 80, targetPort: BACKEND_PORT }] },
    });
    await post(`${NS}/endpoints`, {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web' },
      subsets: [
        {
          addresses: [{ ip: ns.address, targetRef: { kind: 'Pod', namespace: 'default', name: 'backend' } }],
          ports: [{ name: 'http', port: BACKEND_PORT }],
        },
      ],
    });
  }, 15 * 60_000);

  afterAll(async () => {
    await kwok?.stop();
    await server?.stop();
    await ns?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('nodes/proxy reaches the kubelet kwok plays', async () => {
    const healthz = await server.kubectl(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/healthz`]);
    expect(healthz).toMatchObject({ code: 0, stdout: 'ok' });
    // The kubelet's port named, or another port of the node (plain HTTP there: the backend is not on it).
    expect(await server.kubectl(['get', '--raw', `/api/v1/nodes/${NODE}:${KUBELET_PORT}/proxy/healthz`])).toMatchObject(
      { code: 0, stdout: 'ok' },
    );
    const refused = await server.request('GET', `/api/v1/nodes/http:${NODE}:1/proxy/x`);
    expect(refused.json()).toMatchObject({
      code: 503,
      reason: 'ServiceUnavailable',
      message: `error trying to reach service: dial tcp ${ns.address}:1: connect: connection refused`,
    });
  });

  it('lets through only users with the verb on nodes/proxy', async () => {
    const asAlice = (args: readonly string[]) => server.kubectl(['--as=alice', ...args]);
    const path = `/api/v1/nodes/${NODE}/proxy/healthz`;
    const denied = (verb: string) =>
      `Error from server (Forbidden): nodes "${NODE}" is forbidden: User "alice" cannot ${verb} resource "nodes/proxy" in API group "" at the cluster scope`;
    expect(await asAlice(['get', '--raw', path])).toMatchObject({ code: 1, stderr: `${denied('get')}\n` });
    // Reading nodes is not proxying to them.
    expect(
      (await server.kubectl(['create', 'clusterrole', 'node-reader', '--verb=get,list', '--resource=nodes'])).code,
    ).toBe(0);
    expect(
      (
        await server.kubectl([
          'create',
          'clusterrolebinding',
          'alice-reads',
          '--clusterrole=node-reader',
          '--user=alice',
        ])
      ).code,
    ).toBe(0);
    expect(await asAlice(['get', 'node', NODE, '-o', 'name'])).toMatchObject({ code: 0, stdout: `node/${NODE}\n` });
    expect(await asAlice(['get', '--raw', path])).toMatchObject({ code: 1, stderr: `${denied('get')}\n` });
    expect(
      (await server.kubectl(['create', 'clusterrole', 'node-proxy', '--verb=get', '--resource=nodes/proxy'])).code,
    ).toBe(0);
    expect(
      (
        await server.kubectl([
          'create',
          'clusterrolebinding',
          'alice-proxies',
          '--clusterrole=node-proxy',
          '--user=alice',
        ])
      ).code,
    ).toBe(0);
    expect(await asAlice(['get', '--raw', path])).toMatchObject({ code: 0, stdout: 'ok' });
    // A POST is `create`, which alice was not given.
    expect(await asAlice(['create', '--raw', path, '-f', '-'])).toMatchObject({
      code: 1,
      stderr: `${denied('create')}\n`,
    });
  });

  it('pods/proxy reaches the pod at its address, the port named or its first declared one', async () => {
    seen.length = 0;
    const named = await server.kubectl(['get', '--raw', `${NS}/pods/backend:${BACKEND_PORT}/proxy/hello?x=1`]);
    expect(named).toMatchObject({ code: 0, stdout: 'hello from the backend at /hello?x=1\n' });
    const declared = await server.kubectl(['get', '--raw', `${NS}/pods/backend/proxy/hello/`]);
    expect(declared).toMatchObject({ code: 0, stdout: 'hello from the backend at /hello/\n' });
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual(['GET /hello?x=1', 'GET /hello/']);
    // The client's credentials stay with the server; the path it asked for goes along.
    expect(seen[0].headers.authorization).toBeUndefined();
    expect(seen[0].headers['x-forwarded-uri']).toBe(`${NS}/pods/backend:${BACKEND_PORT}/proxy/hello`);
    expect(seen[0].headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('services/proxy reaches a ready pod of the Service, any method, streaming both ways', async () => {
    seen.length = 0;
    expect(await server.kubectl(['get', '--raw', `${NS}/services/web:http/proxy/hello`])).toMatchObject({
      code: 0,
      stdout: 'hello from the backend at /hello\n',
    });
    expect(await server.kubectl(['get', '--raw', `${NS}/services/http:web:80/proxy/hello`])).toMatchObject({
      code: 0,
      stdout: 'hello from the backend at /hello\n',
    });
    const body = Buffer.alloc(4 * 1024 * 1024, 7);
    const echoed = await server.request('PUT', `${NS}/services/web:http/proxy/echo`, {
      body,
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    expect({ status: echoed.status, length: Buffer.byteLength(echoed.body, 'latin1') }).toEqual({
      status: 200,
      length: body.length,
    });
    const plain = await server.request('GET', `${NS}/services/web:http/proxy/hello`);
    expect({ backend: plain.headers['x-backend'], cors: plain.headers['access-control-allow-origin'] }).toEqual({
      backend: 'yes',
      cors: undefined,
    });
    // A redirect to the backend's own path comes back through the proxy.
    const redirect = await server.request('GET', `${NS}/services/web:http/proxy/redirect`);
    expect({ status: redirect.status, location: redirect.headers.location }).toEqual({
      status: 302,
      location: `${NS}/services/web:http/proxy/landing?from=redirect`,
    });
    const root = await server.request('GET', `${NS}/services/web:http/proxy?a=b`);
    expect({ status: root.status, location: root.headers.location }).toEqual({
      status: 301,
      location: `${NS}/services/web:http/proxy/?a=b`,
    });
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'GET /hello',
      'GET /hello',
      'PUT /echo',
      'GET /hello',
      'GET /redirect',
    ]);
  });

  it('passes OPTIONS on, and any method at the root without a redirect', async () => {
    seen.length = 0;
    const options = await server.request('OPTIONS', `${NS}/pods/backend/proxy/hello`);
    expect({ status: options.status, body: options.body }).toEqual({
      status: 200,
      body: 'hello from the backend at /hello\n',
    });
    const deleted = await server.request('DELETE', `${NS}/pods/backend/proxy?method=DELETE`);
    expect({ status: deleted.status, body: deleted.body }).toEqual({
      status: 200,
      body: 'hello from the backend at /?method=DELETE\n',
    });
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual(['OPTIONS /hello', 'DELETE /?method=DELETE']);
  });

  it("rewrites an HTML page's links to go through the proxy, compressed or not", async () => {
    for (const page of ['page', 'page-gzip']) {
      const answer = await server.kubectl(['get', '--raw', `${NS}/services/web:http/proxy/${page}`]);
      expect(answer).toMatchObject({
        code: 0,
        stdout: `<html><body><a href="${NS}/services/web:http/proxy/rewriteme" class="x">test</a> <a href="rel">r</a></body></HTML>`,
      });
    }
    const plain = await server.request('GET', `${NS}/pods/backend/proxy/page`);
    expect({ length: plain.headers['content-length'], body: plain.body }).toEqual({
      length: String(Buffer.byteLength(plain.body)),
      body: `<html><body><a href="${NS}/pods/backend/proxy/rewriteme" class="x">test</a> <a href="rel">r</a></body></HTML>`,
    });
  });

  it('answers what it cannot reach as the reference does', async () => {
    const cases: [string, number, string][] = [
      [`${NS}/services/web:99/proxy/`, 503, 'no service port 99 found for service "web"'],
      [`${NS}/services/web:other/proxy/`, 503, 'no endpoints available for service "web:other"'],
      [`${NS}/services/a:b:c:d/proxy/`, 400, 'invalid service request "a:b:c:d"'],
      [`${NS}/pods/a:b:c:d/proxy/`, 400, 'invalid pod request "a:b:c:d"'],
      [`/api/v1/nodes/a:b:c:d/proxy/`, 400, 'invalid node request "a:b:c:d"'],
    ];
    for (const [path, code, message] of cases) {
      const answer = await server.request('GET', path);
      expect({ path, code: answer.status, message: answer.json<{ message: string }>().message }).toEqual({
        path,
        code,
        message,
      });
    }
  });
});
