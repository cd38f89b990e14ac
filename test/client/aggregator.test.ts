/**
 * The aggregation layer against a real extension API server: an HTTPS server this test serves
 * for metrics.k8s.io/v1beta1 (answering as metrics-server does) behind a Service and its
 * EndpointSlice, registered by an APIService with its CA bundle. An EndpointSlice may hold no
 * loopback address, so capstan runs in a network namespace of the test's own where the
 * extension server is reached at a global address (test/helpers/network-namespace.ts). `kubectl top` works through
 * capstan, discovery lists the group, the extension server sees capstan's front-proxy client
 * certificate and the user in X-Remote-* headers, capstan authorizes first, and an APIService
 * whose server is gone is answered 503 with its condition saying why.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf } from '../../server/pki/certificates';
import { encodeOpenAPIV3Protobuf } from '../../server/openapi/openapi-v3-protobuf';
import { createNetworkNamespace, type NetworkNamespace } from '../helpers/network-namespace';
import { startServer, type TestServer } from '../helpers/server';
import { waitFor as pollUntil } from '../helpers/wait-for';

jest.setTimeout(120_000);

interface SeenRequest {
  readonly path: string;
  readonly user: string | undefined;
  readonly groups: readonly string[];
  readonly authorizedClient: boolean;
  readonly clientName: string | undefined;
  readonly authorization: string | undefined;
}

let dir: string;
let server: TestServer;
let ns: NetworkNamespace;
let extension: Server;
/** Stops serving the extension server in the namespace: its address then refuses connections. */
let unserveExtension: () => Promise<void>;
/** Where the extension server listens, inside the namespace (at ns.address). */
const EXTENSION_PORT = 4443;
const seen: SeenRequest[] = [];

const NOW = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'metrics.k8s.io/v1beta1',
  resources: [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
  ],
};
/** The aggregated discovery document the extension server answers `/apis` with (as a 1.34 generic API server does). */
const AGGREGATED_RESOURCES = [
  {
    resource: 'nodes',
    responseKind: { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics' },
    scope: 'Cluster',
    singularResource: '',
    verbs: ['get', 'list'],
  },
  {
    resource: 'pods',
    responseKind: { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics' },
    scope: 'Namespaced',
    singularResource: '',
    verbs: ['get', 'list'],
  },
];
const AGGREGATED = {
  kind: 'APIGroupDiscoveryList',
  apiVersion: 'apidiscovery.k8s.io/v2',
  metadata: {},
  items: [
    {
      metadata: { name: 'metrics.k8s.io' },
      versions: [{ version: 'v1beta1', resources: AGGREGATED_RESOURCES, freshness: 'Current' }],
    },
  ],
};
/** The extension server's OpenAPI: a v3 document for its group-version, and v2 with the same schema. */
const NODE_METRICS_SCHEMA = {
  description: 'NodeMetrics sets resource usage metrics of a node.',
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    timestamp: { type: 'string', format: 'date-time' },
    window: { type: 'string' },
    usage: { type: 'object', description: 'The memory and CPU usage.', additionalProperties: { type: 'string' } },
  },
  'x-kubernetes-group-version-kind': [{ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics' }],
};
const OPENAPI_V3 = {
  openapi: '3.0.0',
  info: { title: 'Kubernetes', version: 'v0.8.0' },
  paths: {
    '/apis/metrics.k8s.io/v1beta1/nodes': {
      get: {
        operationId: 'listMetricsV1beta1NodeMetrics',
        responses: { '200': { description: 'OK' } },
        'x-kubernetes-action': 'list',
        'x-kubernetes-group-version-kind': { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics' },
      },
    },
  },
  components: { schemas: { 'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics': NODE_METRICS_SCHEMA } },
};
const OPENAPI_V2 = {
  swagger: '2.0',
  info: { title: 'Kubernetes', version: 'v0.8.0' },
  paths: {
    '/apis/metrics.k8s.io/v1beta1/nodes': {
      get: { operationId: 'listMetricsV1beta1NodeMetrics', responses: { '200': { description: 'OK' } } },
      // A kube-openapi server shares its parameters, named by content hash.
      parameters: [{ $ref: '#/parameters/limit-Zm9vYmFy' }],
    },
    '/version': { get: { operationId: 'getCodeVersion', responses: { '200': { description: 'OK' } } } },
  },
  definitions: { 'io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics': NODE_METRICS_SCHEMA },
  parameters: { 'limit-Zm9vYmFy': { uniqueItems: true, type: 'integer', name: 'limit', in: 'query' } },
};
const NODE_METRICS = {
  kind: 'NodeMetricsList',
  apiVersion: 'metrics.k8s.io/v1beta1',
  metadata: {},
  items: [
    {
      metadata: { name: 'node-1', creationTimestamp: NOW },
      timestamp: NOW,
      window: '10s',
      usage: { cpu: '250m', memory: '512Mi' },
    },
  ],
};
const POD_METRICS = {
  kind: 'PodMetricsList',
  apiVersion: 'metrics.k8s.io/v1beta1',
  metadata: {},
  items: [
    {
      metadata: { name: 'web-0', namespace: 'default', creationTimestamp: NOW },
      timestamp: NOW,
      window: '10s',
      containers: [{ name: 'web', usage: { cpu: '15m', memory: '64Mi' } }],
    },
  ],
};

/** metrics-server's answers, keyed by path without query. */
function answerOf(path: string): object | undefined {
  if (path === '/openapi/v3')
    return {
      paths: {
        'apis/metrics.k8s.io/v1beta1': { serverRelativeURL: '/openapi/v3/apis/metrics.k8s.io/v1beta1?hash=ABC' },
      },
    };
  if (path === '/openapi/v3/apis/metrics.k8s.io/v1beta1') return OPENAPI_V3;
  if (path === '/openapi/v2') return OPENAPI_V2;
  if (path === '/apis/metrics.k8s.io/v1beta1') return RESOURCE_LIST;
  if (path === '/apis/metrics.k8s.io/v1beta1/nodes') return NODE_METRICS;
  if (path === '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods' || path === '/apis/metrics.k8s.io/v1beta1/pods')
    return POD_METRICS;
  return undefined;
}

function record(req: IncomingMessage): void {
  const socket = req.socket as TLSSocket;
  const peer = socket.getPeerCertificate();
  const groups = req.headersDistinct['x-remote-group'] ?? [];
  seen.push({
    path: (req.url ?? '').split('?')[0],
    user: req.headers['x-remote-user'] as string | undefined,
    groups,
    authorizedClient: socket.authorized,
    clientName: peer?.subject?.CN as string | undefined,
    authorization: req.headers.authorization,
  });
}

/** The shared poll, at this file's pace. */
function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return pollUntil(what, probe, timeoutMs, 250);
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

async function availableCondition(name: string): Promise<Condition | undefined> {
  const answer = await server.request('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
  if (answer.status !== 200) return undefined;
  return answer
    .json<{ status?: { conditions?: Condition[] } }>()
    .status?.conditions?.find((condition) => condition.type === 'Available');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-aggregator-'));
  const frontProxyCa = await issueCa({ commonName: 'front-proxy-ca', validDays: 1 });
  const proxyClient = await issueLeaf({
    ca: frontProxyCa,
    subject: 'CN=front-proxy-client',
    usage: 'client',
    validDays: 1,
  });
  const servingCa = await issueCa({ commonName: 'metrics-server-ca', validDays: 1 });
  const serving = await issueLeaf({
    ca: servingCa,
    subject: 'CN=metrics-server',
    usage: 'server',
    dnsNames: ['metrics-server.kube-system.svc'],
    validDays: 1,
  });
  writeFileSync(join(dir, 'proxy-client.crt'), proxyClient.certPem);
  writeFileSync(join(dir, 'proxy-client.key'), proxyClient.keyPem);

  // The extension server trusts the front-proxy CA for its request headers, as metrics-server's --requestheader-client-ca-file.
  extension = createHttpsServer(
    {
      cert: serving.certPem,
      key: serving.keyPem,
      ca: frontProxyCa.certPem,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      record(req);
      if (new URL(req.url ?? '/', 'https://x').searchParams.get('watch') === 'true') {
        // One event now, the stream held open: a proxy that buffers would deliver nothing.
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(`${JSON.stringify({ type: 'ADDED', object: NODE_METRICS.items[0] })}\n`);
        return;
      }
      if (req.url === '/apis' && (req.headers.accept ?? '').includes('as=APIGroupDiscoveryList')) {
        res.writeHead(200, { 'Content-Type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
        res.end(JSON.stringify(AGGREGATED));
        return;
      }
      const answer = answerOf((req.url ?? '').split('?')[0]);
      res.writeHead(answer ? 200 : 404, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify(
          answer ?? { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 },
        ),
      );
    },
  );
  // A protocol switch answered by echoing in upper case, as an exec stream would answer.
  extension.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    record(req);
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
    socket.on('data', (chunk: Buffer) => socket.write(chunk.toString('utf8').toUpperCase()));
    socket.on('error', () => socket.destroy());
  });
  ns = await createNetworkNamespace(dir);
  unserveExtension = await ns.serveInside(EXTENSION_PORT, extension);

  server = await startServer({
    flags: [
      '--enable-aggregator-routing=true',
      `--proxy-client-cert-file=${join(dir, 'proxy-client.crt')}`,
      `--proxy-client-key-file=${join(dir, 'proxy-client.key')}`,
    ],
    network: ns,
  });
  const manifests = [
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1' },
      status: { capacity: { cpu: '2', memory: '4Gi' }, allocatable: { cpu: '2', memory: '4Gi' } },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'metrics-server', namespace: 'kube-system' },
      spec: { ports: [{ name: 'https', port: 443, targetPort: 4443 }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: 'metrics-server-1',
        namespace: 'kube-system',
        labels: { 'kubernetes.io/service-name': 'metrics-server' },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: [ns.address], conditions: { ready: true } }],
      ports: [{ name: 'https', port: EXTENSION_PORT, protocol: 'TCP' }],
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io' },
      spec: {
        group: 'metrics.k8s.io',
        version: 'v1beta1',
        groupPriorityMinimum: 100,
        versionPriority: 100,
        service: { namespace: 'kube-system', name: 'metrics-server' },
        caBundle: Buffer.from(servingCa.certPem).toString('base64'),
      },
    },
  ];
  const applied = await server.kubectl(['apply', '-f', '-'], {
    input: manifests.map((manifest) => JSON.stringify(manifest)).join('\n---\n'),
  });
  expect(applied.stderr).toBe('');
  await waitFor('the metrics APIService to be available', async () =>
    (await availableCondition('v1beta1.metrics.k8s.io'))?.status === 'True' ? true : undefined,
  );
});

afterAll(async () => {
  await server?.stop();
  extension?.closeAllConnections();
  await ns?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the APIService passes its checks and the table shows it', async () => {
  expect(await availableCondition('v1beta1.metrics.k8s.io')).toMatchObject({
    status: 'True',
    reason: 'Passed',
    message: 'all checks passed',
  });
  const table = await server.kubectl(['get', 'apiservices', 'v1beta1.metrics.k8s.io', 'v1.apps']);
  expect(table.stdout).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE\n/);
  expect(table.stdout).toMatch(/v1beta1\.metrics\.k8s\.io\s+kube-system\/metrics-server\s+True\s/);
  expect(table.stdout).toMatch(/v1\.apps\s+Local\s+True\s/);
});

test('kubectl top nodes and top pods read the extension server through capstan', async () => {
  const nodes = await server.kubectl(['top', 'nodes']);
  expect(nodes.stderr).toBe('');
  expect(nodes.stdout).toMatch(/^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)/);
  expect(nodes.stdout).toMatch(/node-1\s+250m\s+12%\s+512Mi\s+12%/);
  const pods = await server.kubectl(['top', 'pods', '-n', 'default']);
  expect(pods.stderr).toBe('');
  expect(pods.stdout).toMatch(/web-0\s+15m\s+64Mi/);
});

test('the extension server sees the user in headers and the front-proxy certificate, never the client credentials', async () => {
  seen.length = 0;
  const answer = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/nodes');
  expect(answer.status).toBe(200);
  expect(answer.json<{ kind: string }>().kind).toBe('NodeMetricsList');
  const request = seen.find((entry) => entry.path === '/apis/metrics.k8s.io/v1beta1/nodes');
  expect(request).toEqual({
    path: '/apis/metrics.k8s.io/v1beta1/nodes',
    user: 'kubernetes-admin',
    groups: ['system:masters', 'system:authenticated'],
    authorizedClient: true,
    clientName: 'front-proxy-client',
    authorization: undefined,
  });
});

test('a watch streams through: the first event arrives while the extension server holds the stream open', async () => {
  const url = new URL('/apis/metrics.k8s.io/v1beta1/nodes?watch=true', server.url);
  const first = await new Promise<string>((resolve, reject) => {
    const req = httpsRequest(
      url,
      { ca: server.credentials.ca, cert: server.credentials.cert, key: server.credentials.key },
      (res) => {
        res.once('data', (chunk: Buffer) => {
          resolve(chunk.toString('utf8'));
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
  expect(JSON.parse(first)).toEqual({ type: 'ADDED', object: NODE_METRICS.items[0] });
});

test('an upgrade (an exec-like stream) is switched through to the extension server, as the user', async () => {
  seen.length = 0;
  const url = new URL('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-0/exec', server.url);
  const echoed = await new Promise<string>((resolve, reject) => {
    const req = httpsRequest(url, {
      ca: server.credentials.ca,
      cert: server.credentials.cert,
      key: server.credentials.key,
      headers: { Connection: 'Upgrade', Upgrade: 'echo' },
    });
    req.on('upgrade', (res, socket) => {
      expect(res.statusCode).toBe(101);
      socket.once('data', (chunk: Buffer) => {
        resolve(chunk.toString('utf8'));
        socket.destroy();
      });
      socket.write('hello');
    });
    req.on('response', (res) => reject(new Error(`answered ${res.statusCode} instead of switching`)));
    req.on('error', reject);
    req.end();
  });
  expect(echoed).toBe('HELLO');
  // Refused by capstan's authorization, the switch is answered like any request, and never reaches the server.
  const refused = await new Promise<number>((resolve, reject) => {
    const req = httpsRequest(url, {
      ca: server.credentials.ca,
      cert: server.credentials.cert,
      key: server.credentials.key,
      headers: { Connection: 'Upgrade', Upgrade: 'echo', 'Impersonate-User': 'nobody' },
    });
    req.on('upgrade', () => reject(new Error('switched for a user without access')));
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  expect(refused).toBe(403);
  expect(seen).toMatchObject([
    {
      path: '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-0/exec',
      user: 'kubernetes-admin',
      authorizedClient: true,
    },
  ]);
});

test('capstan authorizes before proxying: a user without access never reaches the extension server', async () => {
  seen.length = 0;
  const answer = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/nodes', {
    headers: { 'Impersonate-User': 'nobody' },
  });
  expect(answer.status).toBe(403);
  expect(answer.json<{ message: string }>().message).toBe(
    'nodes.metrics.k8s.io is forbidden: User "nobody" cannot list resource "nodes" in API group "metrics.k8s.io" at the cluster scope',
  );
  expect(seen).toEqual([]);
});

test('discovery lists the extension group, in /apis, /apis/<group> and the aggregated document', async () => {
  const groups = (await server.request('GET', '/apis'))
    .json<{ groups: { name: string }[] }>()
    .groups.map((group) => group.name);
  expect(groups).toContain('metrics.k8s.io');
  // Priority 100 is below every built-in group's.
  expect(groups.indexOf('metrics.k8s.io')).toBe(groups.length - 1);
  expect(groups[0]).toBe('apiregistration.k8s.io');
  expect(groups).not.toContain('');
  const group = (await server.request('GET', '/apis/metrics.k8s.io')).json();
  expect(group).toEqual({
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: 'metrics.k8s.io',
    versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }],
    preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' },
  });
  const resourceList = (await server.request('GET', '/apis/metrics.k8s.io/v1beta1')).json();
  expect(resourceList).toEqual(RESOURCE_LIST);
  const aggregated = await server.request('GET', '/apis', {
    headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
  });
  const metrics = aggregated
    .json<{ items: { metadata: { name: string }; versions: unknown[] }[] }>()
    .items.find((item) => item.metadata.name === 'metrics.k8s.io');
  // Taken from the extension server's own aggregated document.
  expect(metrics?.versions).toEqual([{ version: 'v1beta1', resources: AGGREGATED_RESOURCES, freshness: 'Current' }]);
  const apiResources = await server.kubectl(['api-resources', '--api-group', 'metrics.k8s.io']);
  expect(apiResources.stdout).toMatch(/nodes\s+metrics\.k8s\.io\/v1beta1\s+false\s+NodeMetrics/);
});

test("the extension server's OpenAPI is served with capstan's: its v3 document, and its group's paths in v2", async () => {
  const index = await waitFor('the extension group in the OpenAPI v3 index', async () => {
    const paths = (await server.request('GET', '/openapi/v3')).json<{
      paths: Record<string, { serverRelativeURL: string }>;
    }>().paths;
    return paths['apis/metrics.k8s.io/v1beta1'] ? paths : undefined;
  });
  expect(index['apis/apps/v1']).toBeDefined();
  const document = await server.request('GET', index['apis/metrics.k8s.io/v1beta1'].serverRelativeURL);
  expect(document.status).toBe(200);
  expect(document.json()).toEqual(OPENAPI_V3);
  // As the reference's aggregator does, its protobuf form is made from the JSON it fetched.
  const protobuf = await server.request('GET', '/openapi/v3/apis/metrics.k8s.io/v1beta1', {
    headers: { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' },
  });
  expect(protobuf.status).toBe(200);
  expect(protobuf.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v3.v1.0+protobuf');
  expect(protobuf.headers.etag).toBe(document.headers.etag);
  expect(protobuf.bytes.equals(encodeOpenAPIV3Protobuf(document.json()))).toBe(true);
  const v2 = (await server.request('GET', '/openapi/v2')).json<{
    paths: Record<string, unknown>;
    definitions: Record<string, unknown>;
    parameters: Record<string, unknown>;
  }>();
  expect(v2.paths['/apis/metrics.k8s.io/v1beta1/nodes']).toEqual(
    OPENAPI_V2.paths['/apis/metrics.k8s.io/v1beta1/nodes'],
  );
  expect(v2.paths['/apis/apps/v1/deployments']).toBeDefined();
  expect(v2.definitions['io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics']).toEqual(NODE_METRICS_SCHEMA);
  // The shared parameter its path names, next to this server's own.
  expect(v2.parameters['limit-Zm9vYmFy']).toEqual(OPENAPI_V2.parameters['limit-Zm9vYmFy']);
  expect(Object.keys(v2.parameters)).toEqual(expect.arrayContaining(['limit-Zm9vYmFy', 'watch-XNNPZGbK']));
  const explained = await server.kubectl(['explain', '--api-version=metrics.k8s.io/v1beta1', 'nodes.usage']);
  expect(explained.stderr).toBe('');
  expect(explained.stdout).toContain('The memory and CPU usage.');
});

test('custom resource versions get automanaged APIServices that go with them', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  expect((await server.kubectl(['apply', '-f', '-'], { input: JSON.stringify(crd) })).stderr).toBe('');
  const registered = await waitFor('the CRD APIService', async () => {
    const answer = await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com');
    return answer.status === 200 &&
      (answer.json<{ status?: { conditions?: unknown[] } }>().status?.conditions ?? []).length > 0
      ? answer.json<Record<string, unknown>>()
      : undefined;
  });
  expect(registered).toMatchObject({
    metadata: { labels: { 'kube-aggregator.kubernetes.io/automanaged': 'true' } },
    spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 },
    status: {
      conditions: [
        { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' },
      ],
    },
  });
  expect((await server.kubectl(['delete', 'crd', 'widgets.example.com'])).code).toBe(0);
  await waitFor('the CRD APIService to go', async () =>
    (await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com')).status === 404
      ? true
      : undefined,
  );
});

test('an automanaged APIService deleted or changed is put back', async () => {
  const before = (await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps')).json<{
    metadata: { uid: string };
  }>();
  expect((await server.kubectl(['delete', 'apiservice', 'v1.apps'])).code).toBe(0);
  const recreated = await waitFor('v1.apps to come back', async () => {
    const answer = await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps');
    return answer.status === 200
      ? answer.json<{ metadata: { uid: string; labels: Record<string, string> }; spec: unknown }>()
      : undefined;
  });
  expect(recreated.metadata.uid).not.toBe(before.metadata.uid);
  expect(recreated).toMatchObject({
    metadata: { labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
    spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 },
  });
  expect(
    (await server.kubectl(['patch', 'apiservice', 'v1.apps', '--type=merge', '-p', '{"spec":{"versionPriority":3}}']))
      .code,
  ).toBe(0);
  await waitFor('the priority to be restored', async () => {
    const answer = (await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps')).json<{
      spec: { versionPriority: number };
    }>();
    return answer.spec.versionPriority === 15 ? true : undefined;
  });
});

test('a local APIService of a group nothing serves is listed in /apis, not in the aggregated document', async () => {
  const apiService = {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1.local.example.com' },
    spec: { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 100 },
  };
  expect((await server.kubectl(['apply', '-f', '-'], { input: JSON.stringify(apiService) })).stderr).toBe('');
  const groups = await waitFor('the local group in /apis', async () => {
    const names = (await server.request('GET', '/apis'))
      .json<{ groups: { name: string }[] }>()
      .groups.map((group) => group.name);
    return names.includes('local.example.com') ? names : undefined;
  });
  // Priority ties go by APIService name, as the reference orders them: v1.local... before v1beta1.metrics...
  expect(groups.slice(-2)).toEqual(['local.example.com', 'metrics.k8s.io']);
  expect((await server.request('GET', '/apis/local.example.com')).json()).toMatchObject({
    kind: 'APIGroup',
    name: 'local.example.com',
  });
  const aggregated = await server.request('GET', '/apis', {
    headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
  });
  expect(
    aggregated.json<{ items: { metadata: { name: string } }[] }>().items.map((item) => item.metadata.name),
  ).not.toContain('local.example.com');
  expect(await waitFor('the Local condition', () => availableCondition('v1.local.example.com'))).toMatchObject({
    status: 'True',
    reason: 'Local',
  });
  expect((await server.kubectl(['delete', 'apiservice', 'v1.local.example.com'])).code).toBe(0);
});

test('an APIService whose Service is missing says so', async () => {
  const apiService = {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1.nosvc.example.com' },
    spec: {
      group: 'nosvc.example.com',
      version: 'v1',
      groupPriorityMinimum: 100,
      versionPriority: 100,
      insecureSkipTLSVerify: true,
      service: { namespace: 'default', name: 'nothere' },
    },
  };
  expect((await server.kubectl(['apply', '-f', '-'], { input: JSON.stringify(apiService) })).stderr).toBe('');
  const condition = await waitFor('the ServiceNotFound condition', () => availableCondition('v1.nosvc.example.com'));
  expect(condition).toMatchObject({
    status: 'False',
    reason: 'ServiceNotFound',
    message: 'service/nothere in "default" is not present',
  });
  const answer = await server.request('GET', '/apis/nosvc.example.com/v1/things');
  expect(answer).toMatchObject({ status: 503, body: 'service unavailable\n' });
  // Listed, but without resources, as the reference lists a group it cannot discover.
  const aggregated = await server.request('GET', '/apis', {
    headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
  });
  const entry = aggregated
    .json<{ items: { metadata: { name: string }; versions: unknown[] }[] }>()
    .items.find((item) => item.metadata.name === 'nosvc.example.com');
  expect(entry?.versions).toEqual([{ version: 'v1', freshness: 'Stale' }]);
  // The Service appearing is seen at once (not at the next resync), and the next check fails further on.
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'nothere', namespace: 'default' },
    spec: { ports: [{ port: 443 }] },
  };
  expect((await server.kubectl(['apply', '-f', '-'], { input: JSON.stringify(service) })).stderr).toBe('');
  const next = await waitFor(
    'the EndpointsNotFound condition',
    async () => {
      const current = await availableCondition('v1.nosvc.example.com');
      return current?.reason === 'ServiceNotFound' ? undefined : current;
    },
    10_000,
  );
  expect(next).toMatchObject({
    status: 'False',
    reason: 'EndpointsNotFound',
    message: 'cannot find endpointslices for service/nothere in "default"',
  });
});

test('when the extension server goes away the APIService becomes unavailable and requests get 503', async () => {
  extension.closeAllConnections();
  await unserveExtension();
  // Still Available until the next check: the proxy says what went wrong, in the reference's words.
  const unreachable = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/nodes');
  expect(unreachable).toMatchObject({
    status: 503,
    body: `error trying to reach service: dial tcp ${ns.address}:${EXTENSION_PORT}: connect: connection refused\n`,
  });
  // Any change of the APIService makes the controller look again at once (else its 30 s resync would).
  await server.kubectl(['annotate', 'apiservice', 'v1beta1.metrics.k8s.io', 'touched=1']);
  const condition = await waitFor('the FailedDiscoveryCheck condition', async () => {
    const current = await availableCondition('v1beta1.metrics.k8s.io');
    return current?.status === 'False' ? current : undefined;
  });
  const url = `https://${ns.address}:${EXTENSION_PORT}/apis/metrics.k8s.io/v1beta1`;
  expect(condition).toMatchObject({
    reason: 'FailedDiscoveryCheck',
    message: `failing or missing response from ${url}: Get "${url}": dial tcp ${ns.address}:${EXTENSION_PORT}: connect: connection refused`,
  });
  const answer = await server.request('GET', '/apis/metrics.k8s.io/v1beta1/nodes');
  expect(answer).toMatchObject({ status: 503, body: 'service unavailable\n' });
  expect((await server.kubectl(['get', 'apiservice', 'v1beta1.metrics.k8s.io'])).stdout).toMatch(
    /False \(FailedDiscoveryCheck\)/,
  );
  const metrics = (await server.request('GET', '/metrics')).body;
  expect(metrics).toContain('aggregator_unavailable_apiservice{name="v1beta1.metrics.k8s.io"} 1\n');
  expect(metrics).toContain('aggregator_unavailable_apiservice{name="v1.apps"} 0\n');
  expect(metrics).toContain(
    'aggregator_unavailable_apiservice_total{name="v1beta1.metrics.k8s.io",reason="FailedDiscoveryCheck"} 1\n',
  );
});
