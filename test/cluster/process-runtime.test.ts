/**
 * The process runtime (process-runtime.ts) runs a Running pod's test-image container as a host
 * process, with its Secret volume at the path the container names, only once that Secret
 * exists, and stops it when the pod goes; a container of another image it leaves alone. No
 * node simulator here: the test plays the kubelet's status writes itself.
 */
import { get as httpsGet } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf } from '../../server/pki/certificates';
import { freePort } from '../helpers/ports';
import { startServer, type TestServer } from '../helpers/server';
import { startProcessRuntime, type ProcessRuntime } from './process-runtime';
import { buildReferenceControllers } from './reference-controllers';

const BUILD_TIMEOUT_MS = 40 * 60_000;
const BIN = join(process.env.KUBE_REF_CACHE ?? join(homedir(), '.cache', 'kube-ref'), 'bin');
const WAIT_MS = 30_000;
const POLL_MS = 200;
const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.56';
const MOUNT = '/webhook.local.config/certificates';

let server: TestServer;
let runtime: ProcessRuntime;
let root: string;

beforeAll(() => buildReferenceControllers(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);

beforeAll(async () => {
  // None of capstan's own controllers: nothing but the test writes a pod's status.
  server = await startServer({ flags: ['--controllers='] });
  root = mkdtempSync(join(tmpdir(), 'capstan-pods-'));
  runtime = startProcessRuntime(server, BIN, root);
  await post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'default' } });
}, 60_000);

afterAll(async () => {
  await runtime?.stop();
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function post(path: string, body: object): Promise<void> {
  const answer = await server.request('POST', path, {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.body}`);
}

/** What a kubelet writes once the pod's sandbox is up: Running, with an address. */
async function markRunning(name: string): Promise<void> {
  const path = `/api/v1/namespaces/default/pods/${name}`;
  const pod = (await server.request('GET', path)).json<Record<string, unknown>>();
  const answer = await server.request('PUT', `${path}/status`, {
    body: JSON.stringify({ ...pod, status: { phase: 'Running', podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }] } }),
    headers: { 'content-type': 'application/json' },
  });
  if (answer.status !== 200) throw new Error(`PUT ${path}/status: ${answer.status} ${answer.body}`);
}

function podOn(name: string, container: object, volumes: readonly object[] = []): object {
  return {
    metadata: { name },
    spec: { nodeName: 'node-a', automountServiceAccountToken: false, containers: [container], volumes },
  };
}

/** The status of GET https://127.0.0.1:<port>/readyz, trusting `ca`; `refused` when nothing listens. */
function readyz(port: number, ca: string): Promise<number | 'refused'> {
  return new Promise((resolve, reject) => {
    const request = httpsGet(
      { host: '127.0.0.1', port, path: '/readyz', ca, servername: 'pod-server.default.svc' },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' ? resolve('refused') : reject(error),
    );
  });
}

async function waitFor<T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`${what}: still ${String(value)} after ${WAIT_MS} ms\n${runtime.logs()}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

test('a Running pod of the test image serves with its Secret volume at the mounted path, once the Secret exists, until the pod goes', async () => {
  const ca = await issueCa({ commonName: 'pod-ca', validDays: 1 });
  const serving = await issueLeaf({
    ca,
    subject: 'CN=pod-server',
    usage: 'server',
    dnsNames: ['pod-server.default.svc'],
    validDays: 1,
  });
  const port = await freePort();
  const container = {
    name: 'server',
    image: AGNHOST,
    args: ['webhook', `--tls-cert-file=${MOUNT}/tls.crt`, `--tls-private-key-file=${MOUNT}/tls.key`, `--port=${port}`],
    volumeMounts: [{ name: 'certs', mountPath: MOUNT, readOnly: true }],
  };
  await post(
    '/api/v1/namespaces/default/pods',
    podOn('serving', container, [{ name: 'certs', secret: { secretName: 'serving-certs' } }]),
  );
  await markRunning('serving');

  // Its Secret is not there: the container cannot start yet, and nothing was run. What must not
  // happen has no condition to wait for: a second of the runtime's polls in which it would show.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(runtime.logs()).not.toContain('default/serving/server');
  expect(await readyz(port, ca.certPem)).toBe('refused');

  const b64 = (pem: string) => Buffer.from(pem).toString('base64');
  await post('/api/v1/namespaces/default/secrets', {
    metadata: { name: 'serving-certs' },
    data: { 'tls.crt': b64(serving.certPem), 'tls.key': b64(serving.keyPem) },
  });
  expect(
    await waitFor(
      'the pod serving',
      () => readyz(port, ca.certPem).catch(() => 'refused' as const),
      (status) => status === 200,
    ),
  ).toBe(200);
  expect(runtime.logs()).toContain('== default/serving/server');

  const deleted = await server.request('DELETE', '/api/v1/namespaces/default/pods/serving?gracePeriodSeconds=0');
  expect(deleted.status).toBe(200);
  expect(
    await waitFor(
      'the process stopped',
      () => readyz(port, ca.certPem).catch(() => 'refused' as const),
      (status) => status === 'refused',
    ),
  ).toBe('refused');
  expect(runtime.logs()).toContain('default/serving/server (pod gone)');
});

test('a container of another image is left alone', async () => {
  await post('/api/v1/namespaces/default/pods', podOn('other', { name: 'pause', image: 'registry.k8s.io/pause:3.10' }));
  await markRunning('other');
  // Nothing may run: the runtime's polls during this time would have started it.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(runtime.logs()).not.toContain('default/other/');
});
