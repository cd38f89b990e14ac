/**
 * The kubelet stand-in in front of kwok (kubelet-stand-in.ts), as the conformance cluster runs
 * it, reached through capstan by the real kubectl 1.33 (its port-forward over WebSocket, which
 * capstan tunnels, and over SPDY): each way's end reaches the other side while the other way stays
 * open (kwok's own forward passes neither on), a port the pod's PortForward object does not name
 * is the kubelet's error on kubectl's error stream, and what the stand-in does not serve (here a
 * pod's log) is kwok's answer. Spoken to directly in raw SPDY (capstan's own client session): the
 * kubelet's refusal of a protocol it does not speak and of a stream without a port, and an older
 * client's streams (no requestID) paired all the same.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from '../../server/kubelet/spdy-session';
import { freePort } from '../helpers/ports';
import { KUBECTL, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait-for';
import { CriLog } from './cri-log';
import { startKubeletStandIn, type KubeletStandIn } from './kubelet-stand-in';
import {
  KUBELET_ADDRESS_FLAG,
  applyKwokObject,
  installKwokCrds,
  kwokKubeletApiArgs,
  logsOf,
  portForwardOf,
  portForwardTargets,
} from './kwok-kubelet-api';
import { addSimulatedNodes, buildKwok, startKwok, type Kwok } from './reference-controllers';

const NODE = 'kwok-node-0';
const PODS = '/api/v1/namespaces/default/pods';
/** kubectl's switch to speak SPDY itself rather than tunnel it in a WebSocket. */
const SPDY_ONLY = { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' };

let server: TestServer;
let standIn: KubeletStandIn;
let kwok: Kwok;
/** The pod's server: what each test has it do with a connection. */
let pod: Server;
let podPort: number;
let ref: { metadata: { name: string; namespace: string; uid: string } };
let logDir: string;
let onPodConnection: (socket: Socket) => void = (socket) => socket.destroy();

beforeAll(async () => {
  buildKwok(10 * 60_000);
  logDir = mkdtempSync(join(tmpdir(), 'capstan-stand-in-'));
  server = await startServer({ flags: ['--controllers=', KUBELET_ADDRESS_FLAG] });
  await installKwokCrds(server);
  const kwokPort = await freePort();
  standIn = await startKubeletStandIn({ kwokPort, lookup: portForwardTargets(server) });
  kwok = startKwok(server.kubeconfig, kwokKubeletApiArgs(kwokPort, standIn.port));
  await addSimulatedNodes(server, [NODE], 60_000);
  pod = createServer({ allowHalfOpen: true }, (socket) => onPodConnection(socket));
  podPort = await freePort();
  await new Promise<void>((resolve) => pod.listen(podPort, '127.0.0.1', resolve));
  // No controllers here: the namespace's service account, which admission asks for, is made by hand.
  const account = await server.request('POST', '/api/v1/namespaces/default/serviceaccounts', {
    body: JSON.stringify({ metadata: { name: 'default' } }),
    headers: { 'content-type': 'application/json' },
  });
  expect(account.status).toBe(201);
  const created = await server.request('POST', PODS, {
    body: JSON.stringify({
      metadata: { name: 'web' },
      spec: { nodeName: NODE, automountServiceAccountToken: false, containers: [{ name: 'web', image: 'web' }] },
    }),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  const uid = created.json<{ metadata: { uid: string } }>().metadata.uid;
  ref = { metadata: { name: 'web', namespace: 'default', uid } };
  await applyKwokObject(server, portForwardOf(ref, new Map([[podPort, '127.0.0.1']])));
}, 180_000);

afterAll(async () => {
  await kwok?.stop();
  await standIn?.stop();
  await server?.stop();
  if (pod !== undefined) await new Promise((resolve) => pod.close(resolve));
  if (logDir !== undefined) rmSync(logDir, { recursive: true, force: true });
});

interface Forwarder {
  readonly local: number;
  output(): string;
  stop(): void;
}

async function portForward(port: number, env: Record<string, string> = {}): Promise<Forwarder> {
  const local = await freePort();
  const child: ChildProcess = spawn(
    KUBECTL,
    ['--kubeconfig', server.kubeconfig, 'port-forward', 'pod/web', `${local}:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor('port-forward to listen', async () =>
    output.includes(`Forwarding from 127.0.0.1:${local}`) ? true : undefined,
  ).catch((error: Error) => Promise.reject(new Error(`${error.message}\n${output}`)));
  return { local, output: () => output, stop: () => child.kill() };
}

/** What `socket` reads up to its end (the other side's FIN), or what it read when it closed without one. */
function readToEnd(socket: Socket): Promise<{ text: string; ended: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    let ended = false;
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('end', () => {
      ended = true;
      resolve({ text, ended });
    });
    socket.once('close', () => resolve({ text, ended }));
  });
}

describe.each([
  ['WebSocket (tunneled by capstan)', {}],
  ['SPDY', SPDY_ONLY],
])('kubectl port-forward over %s through the stand-in', (_protocol, env) => {
  it("passes the pod's end to the client while the client's way stays open", async () => {
    // As the "expects NO client request" conformance spec's pod: it writes, then closes its side.
    const podSaw = new Promise<string>((resolve) => {
      onPodConnection = (socket) => {
        let read = '';
        socket.on('data', (chunk: Buffer) => (read += chunk.toString()));
        socket.end('x'.repeat(100));
        socket.once('end', () => resolve(read));
      };
    });
    const forwarder = await portForward(podPort, env);
    try {
      const client = connect(forwarder.local, '127.0.0.1');
      client.on('error', () => undefined);
      // The client never ends its side: it reads the pod's bytes and its end all the same.
      expect(await readToEnd(client)).toEqual({ text: 'x'.repeat(100), ended: true });
      client.destroy();
      expect(await podSaw).toBe('');
    } finally {
      forwarder.stop();
    }
  });

  it("passes the client's end to the pod, which answers after it", async () => {
    // As the "expects a client request" specs' pod: it reads the client's request to its end, then answers.
    onPodConnection = (socket) => {
      let read = '';
      socket.on('data', (chunk: Buffer) => (read += chunk.toString()));
      socket.once('end', () => socket.end(`read ${JSON.stringify(read)} to its end`));
    };
    const forwarder = await portForward(podPort, env);
    try {
      const client = connect({ port: forwarder.local, host: '127.0.0.1', allowHalfOpen: true });
      client.on('error', () => undefined);
      const answer = readToEnd(client);
      client.end('abc');
      expect(await answer).toEqual({ text: 'read "abc" to its end', ended: true });
      client.destroy();
    } finally {
      forwarder.stop();
    }
  });
});

it("writes the kubelet's error on the error stream for a port the pod's PortForward does not name", async () => {
  const forwarder = await portForward(81, SPDY_ONLY);
  try {
    const client = connect(forwarder.local, '127.0.0.1');
    client.on('error', () => undefined);
    expect(await readToEnd(client)).toMatchObject({ text: '' });
    await waitFor('kubectl to report the error', async () =>
      forwarder.output().includes('forward not found for port 81') ? true : undefined,
    ).catch((error: Error) => Promise.reject(new Error(`${error.message}\n${forwarder.output()}`)));
    expect(forwarder.output()).toContain(
      // klog quotes the pod's reference again.
      'error forwarding port 81 to pod web/default, uid : forward not found for port 81 in pod \\"default/web\\"',
    );
  } finally {
    forwarder.stop();
  }
});

it("passes what it does not serve to kwok: the pod's log", async () => {
  const log = new CriLog(join(logDir, 'web.log'));
  log.start();
  log.writer('stdout')(Buffer.from('read by kwok\n'));
  await applyKwokObject(server, logsOf(ref, [{ container: 'web', current: log.path, previous: log.previousPath }]));
  expect(await server.kubectl(['logs', 'web'])).toMatchObject({ stderr: '', code: 0, stdout: 'read by kwok\n' });
});

/** The stand-in asked directly to switch `/portForward/default/web` to SPDY, offering `protocols`. */
function askPortForward(
  protocols: string,
): Promise<{ answer: IncomingMessage; switched?: undefined } | { switched: { socket: Duplex; head: Buffer } }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({
      host: '127.0.0.1',
      port: standIn.port,
      path: '/portForward/default/web',
      method: 'POST',
      rejectUnauthorized: false,
      headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': protocols },
    });
    req.on('response', (answer) => resolve({ answer }));
    req.on('upgrade', (_answer, socket, head) => resolve({ switched: { socket, head } }));
    req.on('error', reject);
    req.end();
  });
}

/** What a SPDY stream reads up to its peer's FIN or reset, the stream left open for writing. */
function readStream(stream: SpdyStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.once('end', () => resolve(text));
  });
}

describe('the stand-in spoken to in raw SPDY', () => {
  it('refuses a client offering no protocol it speaks, as the kubelet does', async () => {
    const asked = await askPortForward('v9.portforward.example');
    if (asked.switched !== undefined) throw new Error('the stand-in switched protocols');
    const { answer } = asked;
    expect(answer.statusCode).toBe(403);
    expect(answer.headers['x-accepted-stream-protocol-versions']).toBe('portforward.k8s.io');
    const body = await new Promise<string>((resolve) => {
      let text = '';
      answer.on('data', (chunk: Buffer) => (text += chunk.toString()));
      answer.on('end', () => resolve(text));
    });
    expect(body).toBe(
      'unable to upgrade: unable to negotiate protocol: client supports [v9.portforward.example], server accepts [portforward.k8s.io]\n',
    );
  });

  it("refuses a stream without a port, and pairs an older client's streams (no requestID)", async () => {
    onPodConnection = (socket) => {
      let read = '';
      socket.on('data', (chunk: Buffer) => (read += chunk.toString()));
      socket.once('end', () => socket.end(`read ${JSON.stringify(read)}`));
    };
    const { switched } = await askPortForward('portforward.k8s.io');
    if (switched === undefined) throw new Error('the stand-in did not switch protocols');
    const session = new SpdySession(switched.socket, switched.head);
    session.on('error', () => undefined);
    try {
      const portless = session.openStream({ streamtype: 'data' });
      await readStream(portless);
      expect(portless.resetByPeer).toBe(true);
      // No requestID, as old clients sent none: the kubelet pairs such streams by their IDs.
      const error = session.openStream({ streamtype: 'error', port: String(podPort) });
      const data = session.openStream({ streamtype: 'data', port: String(podPort) });
      const answer = readStream(data);
      const errors = readStream(error);
      data.end('abc');
      expect(await answer).toBe('read "abc"');
      expect(await errors).toBe('');
      expect([data.resetByPeer, error.resetByPeer]).toEqual([false, false]);
    } finally {
      session.close();
    }
  });
});
