/**
 * One etcd, two servers: the reference kube-apiserver 1.34 and capstan serve the same etcd under
 * `/registry` at once. What either writes, the other reads (get and list answer the same JSON),
 * an update through one of what the other wrote keeps generation, managedFields and the order
 * of resource versions, an unchanged object written back through either is not written again
 * (both encode it to the very bytes stored), and a watch through either sees
 * every write of both, once. Every built-in kind capstan serves is written once through each,
 * by client-go in protobuf (test/go's -leave-in), and read back through both.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { buildGoProgram, findGo } from '../helpers/go-programs';
import { startServer, type HttpResult, type KubectlResult, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait-for';
import {
  buildReferenceApiserver,
  serviceAccountKeyFlags,
  startReferenceApiserver,
  type ReferenceApiserver,
} from '../helpers/reference-apiserver';
import { openWatchStream, type WatchEvent, type WatchStream } from './watch-client';

jest.setTimeout(240_000);
/** The reference binary is built from its Go module when the cache lacks it. */
const BUILD_TIMEOUT_MS = 40 * 60_000;
beforeAll(() => buildReferenceApiserver(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);

const MAKE_CERTS = join(__dirname, '..', '..', 'deploy', 'pki', 'make-certs.sh');
/** Flags both servers get: no ServiceAccount admission (no controller manager makes `default` accounts). */
const COMMON_FLAGS = ['--service-cluster-ip-range=10.96.0.0/12', '--disable-admission-plugins=ServiceAccount'];

type Server = Pick<TestServer, 'kubectl' | 'request' | 'url' | 'credentials' | 'kubeconfig'>;
type Json = Record<string, any>;

let pkiDir: string;
let etcd: EtcdServer;
let reference: ReferenceApiserver;
let capstan: TestServer;
let servers: Record<'reference' | 'capstan', Server>;
/** test/go's client-go program, which writes an object of every built-in kind. */
let clientGo: string;

beforeAll(async () => {
  pkiDir = mkdtempSync(join(tmpdir(), 'one-etcd-pki-'));
  execFileSync('sh', [MAKE_CERTS, pkiDir], { stdio: 'ignore' });
  const go = findGo();
  if (go === undefined) throw new Error('no Go toolchain: the reference server this test runs is built with it');
  clientGo = join(pkiDir, 'clientgo');
  buildGoProgram(go, '.', clientGo);
  etcd = await startEtcd();
  reference = await startReferenceApiserver({ etcdServers: etcd.endpoints, pkiDir, flags: COMMON_FLAGS });
  // Started second, capstan finds the reference's bootstrap objects (namespaces, RBAC, flow schemas) in place.
  capstan = await startServer({
    etcdServers: etcd.endpoints,
    pkiDir,
    flags: [...serviceAccountKeyFlags(pkiDir), ...COMMON_FLAGS],
  });
  servers = { reference, capstan };
});

afterAll(async () => {
  await capstan?.stop();
  await reference?.stop();
  await etcd?.stop();
  if (pkiDir) rmSync(pkiDir, { recursive: true, force: true });
});

function ok(result: KubectlResult): string {
  if (result.code !== 0) throw new Error(`kubectl failed: ${result.stderr}`);
  return result.stdout;
}

function json(result: HttpResult, status = 200): Json {
  if (result.status !== status) throw new Error(`expected ${status}, got ${result.status}: ${result.body}`);
  return result.json<Json>();
}

/** Objects of the kinds under test in `namespace`, the custom resource of group `group`. */
function manifest(namespace: string, group: string): string {
  const podSpec = { containers: [{ name: 'c', image: 'nginx' }] };
  const objects = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace, labels: { app: 'web' } },
      data: { mode: 'fast', html: '<b>&</b>' },
    },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace }, spec: podSpec },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
      },
    },
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader', namespace },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
    },
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web-0.1', namespace },
      involvedObject: { kind: 'Pod', name: 'web-0', namespace },
      reason: 'Started',
      message: 'started',
      type: 'Normal',
    },
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
                },
              },
            },
            subresources: { status: {} },
            additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          },
        ],
      },
    },
  ];
  return objects.map((object) => JSON.stringify(object)).join('\n---\n');
}

/** Kinds compared through both servers, as kubectl names them. */
const KINDS = [
  'configmaps',
  'pods',
  'services',
  'deployments.apps',
  'leases.coordination.k8s.io',
  'events.v1.',
  'events.events.k8s.io',
];

async function items(server: Server, args: string[]): Promise<Json[]> {
  return (JSON.parse(ok(await server.kubectl(['get', ...args, '-o', 'json']))) as { items: Json[] }).items;
}

/** Waits until both servers answer `args` alike (the other may not have caught up yet), then compares. */
async function expectSameThroughBoth(args: string[]): Promise<Json[]> {
  let seen: Json[] = [];
  await waitFor(
    `both servers to answer kubectl get ${args.join(' ')} alike`,
    async () => {
      const [fromReference, fromCapstan] = await Promise.all([items(reference, args), items(capstan, args)]);
      seen = fromReference;
      return JSON.stringify(fromReference) === JSON.stringify(fromCapstan) && fromReference.length > 0
        ? true
        : undefined;
    },
    20_000,
  ).catch(() => undefined);
  const [fromReference, fromCapstan] = await Promise.all([items(reference, args), items(capstan, args)]);
  expect(fromCapstan).toEqual(fromReference);
  expect(fromReference.length).toBeGreaterThan(0);
  return seen;
}

async function createCustomResource(server: Server, namespace: string, group: string): Promise<void> {
  const gadget = {
    apiVersion: `${group}/v1`,
    kind: 'Gadget',
    metadata: { name: 'g1', namespace },
    spec: { size: 3, color: 'red <&>' },
  };
  // Each server serves the new type once it has seen the CRD established, the other's included.
  await waitFor(
    `${group} gadgets served`,
    async () => ((await server.kubectl(['get', `gadgets.${group}`, '-n', namespace])).code === 0 ? true : undefined),
    30_000,
  );
  ok(await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(gadget) }));
}

describe.each([
  { writer: 'reference', reader: 'capstan' },
  { writer: 'capstan', reader: 'reference' },
] as const)('objects written through the $writer', ({ writer }) => {
  /** Keeps the addresses of the objects each server writes apart (IPAddress, ServiceCIDR). */
  const octet = writer === 'reference' ? 3 : 4;
  const namespace = `from-${writer}`;
  const group = `${writer}.example.com`;

  beforeAll(async () => {
    ok(await servers[writer].kubectl(['create', '-f', '-'], { input: manifest(namespace, group) }));
    await createCustomResource(servers[writer], namespace, group);
  });

  test.each(KINDS)('%s: list and get answer the same through both', async (kind) => {
    const listed = await expectSameThroughBoth([kind, '-n', namespace]);
    for (const item of listed) {
      const [fromReference, fromCapstan] = await Promise.all(
        [reference, capstan].map(async (server) =>
          JSON.parse(ok(await server.kubectl(['get', kind, '-n', namespace, item.metadata.name, '-o', 'json']))),
        ),
      );
      expect(fromCapstan).toEqual(fromReference);
    }
  });

  test('every built-in kind, written by client-go in protobuf, reads the same through both', async () => {
    const written = await new Promise<string>((resolve, reject) =>
      execFile(
        clientGo,
        ['-kubeconfig', servers[writer].kubeconfig, '-leave-in', `all-from-${writer}`, '-octet', String(octet)],
        { timeout: 100_000 },
        (error, stdout) =>
          error ? reject(new Error(`client-go program: ${error.message}\n${stdout}`)) : resolve(stdout),
      ),
    );
    const paths = written.split('\n').filter((line) => line.startsWith('/'));
    expect(paths.length).toBeGreaterThan(50);
    const bodies = (server: Server) =>
      Promise.all(paths.map(async (path) => ({ path, object: json(await server.request('GET', path)) })));
    // The other server's cache may lag a moment, and controllers of both may still be writing status.
    await waitFor(
      'both servers to answer every kind alike',
      async () =>
        JSON.stringify(await bodies(reference)) === JSON.stringify(await bodies(capstan)) ? true : undefined,
      30_000,
    ).catch(() => undefined);
    const [fromReference, fromCapstan] = await Promise.all([bodies(reference), bodies(capstan)]);
    for (const [index, answer] of fromCapstan.entries()) expect(answer).toEqual(fromReference[index]);
  });

  test('the CRD and its custom resource answer the same through both', async () => {
    const [crd] = await expectSameThroughBoth([
      'customresourcedefinitions',
      '--field-selector',
      `metadata.name=gadgets.${group}`,
    ]);
    expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size).toEqual({ type: 'integer' });
    const [gadget] = await expectSameThroughBoth([`gadgets.${group}`, '-n', namespace]);
    expect(gadget.spec).toEqual({ size: 3, color: 'red <&>' });
    // The printer column of the stored (v1beta1) CRD, through both.
    for (const server of [reference, capstan])
      expect(ok(await server.kubectl(['get', `gadgets.${group}`, '-n', namespace]))).toMatch(/^NAME\s+SIZE\ng1\s+3\n$/);
  });

  test('updates through either keep generation, managedFields and resource version order', async () => {
    const path = `/apis/apps/v1/namespaces/${namespace}/deployments/web`;
    const original = json(await servers[writer].request('GET', path));
    let previous = original;
    // Each update sets a field of its own, so each manager keeps an entry of its own.
    const changes = [{ replicas: 3 }, { minReadySeconds: 5 }, { revisionHistoryLimit: 4 }];
    for (const [step, server] of [capstan, reference, capstan].entries()) {
      const patched = json(
        await server.request('PATCH', `${path}?fieldManager=updater-${step}`, {
          body: JSON.stringify({ spec: changes[step] }),
          headers: { 'Content-Type': 'application/merge-patch+json' },
        }),
      );
      expect(patched.metadata.generation).toBe(previous.metadata.generation + 1);
      expect(Number(patched.metadata.resourceVersion)).toBeGreaterThan(Number(previous.metadata.resourceVersion));
      expect(patched.metadata.uid).toBe(original.metadata.uid);
      expect(patched.metadata.managedFields.map((entry: Json) => entry.manager)).toEqual([
        ...previous.metadata.managedFields.map((entry: Json) => entry.manager),
        `updater-${step}`,
      ]);
      previous = patched;
    }
    for (const server of [reference, capstan]) expect(json(await server.request('GET', path))).toEqual(previous);
  });

  test.each([
    ['a custom resource', (group: string, namespace: string) => `/apis/${group}/v1/namespaces/${namespace}/gadgets/g1`],
    ['a ConfigMap', (_group: string, namespace: string) => `/api/v1/namespaces/${namespace}/configmaps/settings`],
    ['a Deployment', (_group: string, namespace: string) => `/apis/apps/v1/namespaces/${namespace}/deployments/web`],
  ])(
    '%s written back unchanged through either is not written again: both encode it to the stored bytes',
    async (_what, pathOf) => {
      const path = pathOf(group, namespace);
      for (const server of [capstan, reference]) {
        const current = json(await servers[writer].request('GET', path));
        const manager = (current.metadata.managedFields as Json[]).at(-1)?.manager as string;
        const written = json(
          await server.request('PUT', `${path}?fieldManager=${manager}`, {
            body: JSON.stringify(current),
            headers: { 'Content-Type': 'application/json' },
          }),
        );
        expect(written.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
      }
    },
  );
});

describe('a watch through either server', () => {
  const namespace = 'watched';
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  let streams: WatchStream[] = [];

  afterAll(() => streams.forEach((stream) => stream.close()));

  test("sees every write of both, once, in the store's order", async () => {
    const created = json(
      await reference.request('POST', '/api/v1/namespaces', {
        body: JSON.stringify({ metadata: { name: namespace } }),
      }),
      201,
    );
    const seen: Record<'reference' | 'capstan', WatchEvent[]> = { reference: [], capstan: [] };
    streams = (['reference', 'capstan'] as const).map((name) =>
      openWatchStream({
        url: servers[name].url,
        credentials: servers[name].credentials,
        path: `${path}?watch=1&resourceVersion=${created.metadata.resourceVersion}`,
        onEvent: (event) => seen[name].push(event),
      }),
    );
    expect(await Promise.all(streams.map((stream) => stream.responded))).toEqual([200, 200]);

    const expected: { type: string; name: string; resourceVersion?: string }[] = [];
    const order = [reference, capstan];
    for (let index = 0; index < 6; index++) {
      const [first, second] = index % 2 === 0 ? order : [...order].reverse();
      const name = `cm-${index}`;
      const added = json(
        await first.request('POST', path, { body: JSON.stringify({ metadata: { name }, data: { n: '0' } }) }),
        201,
      );
      expected.push({ type: 'ADDED', name, resourceVersion: added.metadata.resourceVersion });
      const modified = json(
        await second.request('PATCH', `${path}/${name}`, {
          body: JSON.stringify({ data: { n: '1' } }),
          headers: { 'Content-Type': 'application/merge-patch+json' },
        }),
      );
      expected.push({ type: 'MODIFIED', name, resourceVersion: modified.metadata.resourceVersion });
      if (index % 3 === 2) {
        json(await first.request('DELETE', `${path}/${name}`));
        expected.push({ type: 'DELETED', name });
      }
    }
    json(await capstan.request('POST', path, { body: JSON.stringify({ metadata: { name: 'sentinel' } }) }), 201);
    for (const name of ['reference', 'capstan'] as const) {
      await waitFor(
        `the ${name} watch to see the sentinel`,
        async () => (seen[name].some((event) => event.object.metadata?.name === 'sentinel') ? true : undefined),
        30_000,
      );
    }

    // Only the test's own writes: capstan's controllers publish kube-root-ca.crt in every namespace.
    const summary = (events: WatchEvent[]) =>
      events
        .filter((event) => event.object.metadata?.name?.startsWith('cm-'))
        .map((event) => ({
          type: event.type,
          name: event.object.metadata?.name,
          resourceVersion: event.object.metadata?.resourceVersion,
        }));
    const beforeSentinel = (events: WatchEvent[]) =>
      summary(
        events.slice(
          0,
          events.findIndex((event) => event.object.metadata?.name === 'sentinel'),
        ),
      );
    expect(beforeSentinel(seen.capstan)).toEqual(beforeSentinel(seen.reference));
    expect(beforeSentinel(seen.reference)).toEqual(
      expected.map((event) => ({ ...event, resourceVersion: event.resourceVersion ?? expect.any(String) })),
    );
    const versions = beforeSentinel(seen.reference).map((event) => Number(event.resourceVersion));
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
  });
});
