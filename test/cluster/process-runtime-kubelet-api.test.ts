/**
 * The process runtime (process-runtime.ts) with kwok serving the kubelet API (kwok-kubelet-api.ts),
 * as the conformance cluster runs them: a pod's process reached through `kubectl port-forward`
 * (kwok told its listening port by a `PortForward` object), its output read back by `kubectl
 * logs` (a `Logs` object naming its CRI-format log file), its end reported in the pod's status
 * as a kubelet reports it, and the pod's objects removed with it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports';
import { KUBECTL, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait-for';
import { KUBELET_ADDRESS_FLAG, installKwokCrds, kwokKubeletApiArgs } from './kwok-kubelet-api';
import { startProcessRuntime, type ProcessRuntime } from './process-runtime';
import { addSimulatedNodes, buildReferenceControllers, startKwok, type Kwok } from './reference-controllers';

const BUILD_TIMEOUT_MS = 40 * 60_000;
const BIN = join(process.env.KUBE_REF_CACHE ?? join(homedir(), '.cache', 'kube-ref'), 'bin');
const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.56';
const NODE = 'kwok-node-0';
const PODS = '/api/v1/namespaces/default/pods';
const KWOK_API = '/apis/kwok.x-k8s.io/v1alpha1/namespaces/default';

let server: TestServer;
let kwok: Kwok;
let runtime: ProcessRuntime;
let root: string;

beforeAll(() => buildReferenceControllers(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);

beforeAll(async () => {
  // None of capstan's own controllers: kwok and the runtime are the only writers of pod status.
  server = await startServer({ flags: ['--controllers=', KUBELET_ADDRESS_FLAG] });
  await installKwokCrds(server);
  kwok = startKwok(server.kubeconfig, kwokKubeletApiArgs(await freePort()));
  await addSimulatedNodes(server, [NODE], 60_000);
  root = mkdtempSync(join(tmpdir(), 'capstan-pods-'));
  runtime = startProcessRuntime(server, BIN, root, { kwok: true });
  const account = await server.request('POST', '/api/v1/namespaces/default/serviceaccounts', {
    body: JSON.stringify({ metadata: { name: 'default' } }),
    headers: { 'content-type': 'application/json' },
  });
  expect(account.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await kwok?.stop();
  await server?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The runtime's and kwok's output, added to a failed wait's message. */
const context = () => `\n--- runtime:\n${runtime.logs()}\n--- kwok:\n${kwok.logs().slice(-4000)}`;

/** Sends `data` to 127.0.0.1:`port`, half-closes, and reads to the end. */
function exchange(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(data));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

interface PodStatus {
  readonly phase?: string;
  readonly conditions?: readonly { readonly type: string; readonly status: string; readonly reason?: string }[];
  readonly containerStatuses?: readonly {
    readonly name: string;
    readonly ready: boolean;
    readonly state: { readonly terminated?: { readonly exitCode: number; readonly reason: string } };
  }[];
}

test('a pod process is port-forwarded to, its log read, and its end reported, through kwok as the kubelet', async () => {
  // The tester accepts one connection, checks what it reads, answers with two chunks, and exits 0.
  const podPort = await freePort();
  const pod = {
    metadata: { name: 'forwarded' },
    spec: {
      nodeName: NODE,
      automountServiceAccountToken: false,
      restartPolicy: 'Never',
      containers: [
        {
          name: 'tester',
          image: AGNHOST,
          args: ['port-forward-tester'],
          env: [
            { name: 'BIND_ADDRESS', value: 'localhost' },
            { name: 'BIND_PORT', value: String(podPort) },
            { name: 'EXPECTED_CLIENT_DATA', value: 'abc' },
            { name: 'CHUNKS', value: '2' },
            { name: 'CHUNK_SIZE', value: '5' },
            { name: 'CHUNK_INTERVAL', value: '10' },
          ],
        },
      ],
    },
  };
  const created = await server.request('POST', PODS, {
    body: JSON.stringify(pod),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  const uid = created.json<{ metadata: { uid: string } }>().metadata.uid;

  // kwok is told where the pod's port is once its process listens: the address it bound.
  const forwards = await waitFor(
    'the PortForward naming the listening port',
    async () => {
      const answer = await server.request('GET', `${KWOK_API}/portforwards/forwarded`);
      if (answer.status !== 200) return undefined;
      const object = answer.json<{ spec: { forwards: unknown[] }; metadata: { ownerReferences: { uid: string }[] } }>();
      return object.spec.forwards.length > 0 ? object : undefined;
    },
    30_000,
  ).catch((error: Error) => Promise.reject(new Error(error.message + context())));
  expect(forwards.spec.forwards).toEqual([{ ports: [podPort], target: { port: podPort, address: '127.0.0.1' } }]);
  expect(forwards.metadata.ownerReferences.map((owner) => owner.uid)).toEqual([uid]);

  const local = await freePort();
  const forwarder = spawn(
    KUBECTL,
    ['--kubeconfig', server.kubeconfig, 'port-forward', 'pod/forwarded', `${local}:${podPort}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let forwarderOutput = '';
  forwarder.stdout.on('data', (chunk: Buffer) => (forwarderOutput += chunk.toString()));
  forwarder.stderr.on('data', (chunk: Buffer) => (forwarderOutput += chunk.toString()));
  try {
    await waitFor('port-forward to listen', async () =>
      forwarderOutput.includes(`Forwarding from 127.0.0.1:${local}`) ? true : undefined,
    );
    expect(await exchange(local, 'abc')).toBe('x'.repeat(10));
  } finally {
    forwarder.kill();
  }

  // A kubelet's report of a container that ended for good, the last one of its pod.
  const status = await waitFor(
    'the pod to be reported Succeeded',
    async () => {
      const answer = await server.request('GET', `${PODS}/forwarded`);
      const current = answer.json<{ status: PodStatus }>().status;
      return current.phase === 'Succeeded' ? current : undefined;
    },
    30_000,
  ).catch((error: Error) => Promise.reject(new Error(error.message + context())));
  expect(status.containerStatuses).toEqual([
    expect.objectContaining({
      name: 'tester',
      ready: false,
      state: { terminated: expect.objectContaining({ exitCode: 0, reason: 'Completed' }) },
    }),
  ]);
  expect(status.conditions?.find((condition) => condition.type === 'Ready')).toMatchObject({
    status: 'False',
    reason: 'PodCompleted',
  });

  // Its output, read from the log file kwok was told of, after the process ended.
  const logs = await server.kubectl(['logs', 'forwarded']);
  expect(logs).toMatchObject({
    code: 0,
    stdout: 'Accepted client connection\nReceived expected client data\nShutting down connection\nDone\n',
  });

  const deleted = await server.request('DELETE', `${PODS}/forwarded?gracePeriodSeconds=0`);
  expect(deleted.status).toBe(200);
  await waitFor('the pod objects for kwok to go with the pod', async () => {
    const [logsObject, forwardObject] = await Promise.all([
      server.request('GET', `${KWOK_API}/logs/forwarded`),
      server.request('GET', `${KWOK_API}/portforwards/forwarded`),
    ]);
    return logsObject.status === 404 && forwardObject.status === 404 ? true : undefined;
  });
});

test('a container started again keeps its last instance log as the previous one', async () => {
  // Exits 1 at once each time (its port is not a number); OnFailure starts it again.
  const created = await server.request('POST', PODS, {
    body: JSON.stringify({
      metadata: { name: 'restarting' },
      spec: {
        nodeName: NODE,
        automountServiceAccountToken: false,
        restartPolicy: 'OnFailure',
        containers: [
          {
            name: 'tester',
            image: AGNHOST,
            args: ['port-forward-tester'],
            env: [{ name: 'BIND_PORT', value: 'none' }],
          },
        ],
      },
    }),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  const previous = await waitFor(
    'a previous instance log',
    async () => {
      const answer = await server.kubectl(['logs', 'restarting', '--previous']);
      return answer.code === 0 && answer.stdout !== '' ? answer.stdout : undefined;
    },
    30_000,
  ).catch((error: Error) => Promise.reject(new Error(error.message + context())));
  expect(previous).toMatch(/^Error resolving: .*\n$/);
  const deleted = await server.request('DELETE', `${PODS}/restarting?gracePeriodSeconds=0`);
  expect(deleted.status).toBe(200);
});
