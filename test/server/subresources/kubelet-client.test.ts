/**
 * The kubelet client's transport rules, against a kubelet this test serves itself on loopback
 * (HTTPS, asking for a client certificate): the serving certificate verified against
 * `--kubelet-certificate-authority` (and not with `insecureSkipTLSVerifyBackend`), the client
 * certificate presented, `--kubelet-timeout` bounding the wait for an answer, a kubelet's
 * refusal in the reference's words; and backpressure: a client that stops reading a followed
 * log holds the kubelet back at a bounded number of bytes, and takes the rest once it reads again.
 */
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { connect as tlsConnect } from 'node:tls';
import { issueCa, issueLeaf } from '../../../server/pki/certificates';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { retryUntil } from '../../helpers/wait-for';

const NS = '/api/v1/namespaces/default';
const JSON_BODY = { 'Content-Type': 'application/json' };
const CHUNK = Buffer.alloc(64 * 1024, 'x');
/** The stalled stream may not hold more than this between the kubelet and the client (socket buffers on both legs included). */
const STALLED_BOUND_BYTES = 48 * 1024 * 1024;
/** The kubelet stops by itself after this much, so a broken test cannot fill memory. */
const KUBELET_MAX_BYTES = 512 * 1024 * 1024;

interface FakeKubelet {
  readonly port: number;
  readonly server: Server;
  /** Bytes written to the followed log so far. */
  followedBytes(): number;
  /** Client certificate subjects seen. */
  readonly peers: string[];
}

async function startFakeKubelet(tls: { certPem: string; keyPem: string }): Promise<FakeKubelet> {
  let followed = 0;
  const peers: string[] = [];
  const server = createHttpsServer(
    { cert: tls.certPem, key: tls.keyPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      peers.push(String(peer?.subject?.CN ?? ''));
      const url = new URL(req.url ?? '/', 'https://kubelet');
      if (url.pathname === '/containerLogs/default/web/app' && url.searchParams.get('follow') === 'true') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        const pump = () => {
          while (followed < KUBELET_MAX_BYTES) {
            followed += CHUNK.length;
            if (!res.write(CHUNK)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
        return;
      }
      if (url.pathname === '/containerLogs/default/web/app') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`log of app ${url.search}\n`);
        return;
      }
      if (url.pathname === '/containerLogs/default/labelled/app') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`labelled, reached as ${req.headers.host}\n`);
        return;
      }
      if (url.pathname === '/containerLogs/default/web/slow') return; // never answers
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('container not found ("missing")');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, followedBytes: () => followed, peers };
}

async function placePod(server: InProcessServer, kubeletPort: number): Promise<void> {
  // n1 reports no Hostname and has no hostname label: its InternalIP is next. n2's label stands
  // for its Hostname (localhost, so that no name is looked up outside this machine).
  for (const [name, labels] of [
    ['n1', {}],
    ['n2', { 'kubernetes.io/hostname': 'localhost' }],
  ] as const) {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } };
    expect(
      (await server.request('POST', '/api/v1/nodes', { body: JSON.stringify(node), headers: JSON_BODY })).status,
    ).toBe(201);
    const status = {
      status: {
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } },
      },
    };
    expect(
      (
        await server.request('PATCH', `/api/v1/nodes/${name}/status`, {
          body: JSON.stringify(status),
          headers: { 'Content-Type': 'application/merge-patch+json' },
        })
      ).status,
    ).toBe(200);
  }
  const containers = [
    { name: 'app', image: 'x' },
    { name: 'slow', image: 'x' },
    { name: 'missing', image: 'x' },
  ];
  for (const [name, nodeName] of [
    ['web', 'n1'],
    ['labelled', 'n2'],
  ]) {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers } };
    expect((await server.request('POST', `${NS}/pods`, { body: JSON.stringify(pod), headers: JSON_BODY })).status).toBe(
      201,
    );
  }
}

/**
 * The count `read` gives once it stops growing for `quietMs`. A stall has no event to wait for:
 * it is the absence of progress over a time.
 */
async function settled(read: () => number, quietMs: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = read();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = read();
    if (now === last || Date.now() > deadline) return now;
    last = now;
  }
}

describe('the kubelet client against a kubelet served here', () => {
  let kubelet: FakeKubelet;
  let verifying: InProcessServer;
  let wrongCa: InProcessServer;
  let dir: string;
  let written: { ca: string; other: string; cert: string; key: string };
  let caKeyPem: string;

  beforeAll(async () => {
    const kubeletCa = await issueCa({ commonName: 'kubelet-ca', validDays: 1 });
    const serving = await issueLeaf({
      ca: kubeletCa,
      subject: 'CN=kubelet',
      usage: 'server',
      ipAddresses: ['127.0.0.1'],
      dnsNames: ['localhost'],
      validDays: 1,
    });
    kubelet = await startFakeKubelet(serving);
    const otherCa = await issueCa({ commonName: 'other-ca', validDays: 1 });
    const client = await issueLeaf({
      ca: kubeletCa,
      subject: 'CN=kube-apiserver-kubelet-client',
      usage: 'client',
      validDays: 1,
    });
    dir = mkdtempSync(join(tmpdir(), 'kubelet-client-'));
    caKeyPem = kubeletCa.keyPem;
    written = {
      ca: join(dir, 'kubelet-ca.crt'),
      other: join(dir, 'other-ca.crt'),
      cert: join(dir, 'client.crt'),
      key: join(dir, 'client.key'),
    };
    writeFileSync(written.ca, kubeletCa.certPem);
    writeFileSync(written.other, otherCa.certPem);
    writeFileSync(written.cert, client.certPem);
    writeFileSync(written.key, client.keyPem);
    verifying = await startInProcessServer([
      '--disable-admission-plugins',
      'ServiceAccount',
      '--kubelet-timeout=1s',
      '--kubelet-preferred-address-types=Hostname,InternalIP',
      `--kubelet-certificate-authority=${written.ca}`,
      `--kubelet-client-certificate=${written.cert}`,
      `--kubelet-client-key=${written.key}`,
    ]);
    wrongCa = await startInProcessServer([
      '--disable-admission-plugins',
      'ServiceAccount',
      '--kubelet-preferred-address-types=InternalIP',
      `--kubelet-certificate-authority=${written.other}`,
    ]);
    await placePod(verifying, kubelet.port);
    await placePod(wrongCa, kubelet.port);
  }, 60_000);

  afterAll(async () => {
    await verifying?.stop();
    await wrongCa?.stop();
    kubelet?.server.closeAllConnections();
    kubelet?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the kubelet against --kubelet-certificate-authority and presents the client certificate', async () => {
    const answer = await verifying.request(
      'GET',
      `${NS}/pods/web/log?container=app&tailLines=2&sinceTime=2020-01-01T00:00:00.5%2B02:00`,
    );
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 200,
      body: 'log of app ?sinceTime=2019-12-31T22%3A00%3A00Z&tailLines=2\n',
    });
    expect(kubelet.peers.at(-1)).toBe('kube-apiserver-kubelet-client');
    // The first preferred type a node has: n2's hostname label stands for the Hostname it does not report.
    const labelled = await verifying.request('GET', `${NS}/pods/labelled/log?container=app`);
    expect({ status: labelled.status, body: labelled.body }).toEqual({
      status: 200,
      body: `labelled, reached as localhost:${kubelet.port}\n`,
    });
  });

  it('presents a rotated client certificate from the next request on', async () => {
    const kubeletCa = { certPem: readFileSync(written.ca, 'utf8'), keyPem: caKeyPem };
    const rotated = await issueLeaf({
      ca: kubeletCa,
      subject: 'CN=rotated-kubelet-client',
      usage: 'client',
      validDays: 1,
    });
    // The key first, as a rotation writes them; then the certificate, with a later time.
    writeFileSync(written.key, rotated.keyPem);
    writeFileSync(written.cert, rotated.certPem);
    const later = new Date(Date.now() + 2_000);
    utimesSync(written.cert, later, later);
    utimesSync(written.key, later, later);
    const answer = await verifying.request('GET', `${NS}/pods/web/log?container=app`);
    expect(answer.status).toBe(200);
    expect(kubelet.peers.at(-1)).toBe('rotated-kubelet-client');
  });

  it('refuses a kubelet its CA did not sign, unless insecureSkipTLSVerifyBackend', async () => {
    const refused = await wrongCa.request('GET', `${NS}/pods/web/log?container=app`);
    expect(refused.status).toBe(500);
    expect(refused.json<{ message: string }>().message).toBe(
      `Get "https://127.0.0.1:${kubelet.port}/containerLogs/default/web/app": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
    const skipped = await wrongCa.request('GET', `${NS}/pods/web/log?container=app&insecureSkipTLSVerifyBackend=true`);
    expect({ status: skipped.status, body: skipped.body }).toEqual({ status: 200, body: 'log of app \n' });
  });

  it('gives up on a kubelet that does not answer within --kubelet-timeout, and words its refusals as the reference', async () => {
    const started = Date.now();
    const slow = await verifying.request('GET', `${NS}/pods/web/log?container=slow`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(slow.json()).toMatchObject({
      code: 500,
      message: `Get "https://127.0.0.1:${kubelet.port}/containerLogs/default/web/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    });
    const missing = await verifying.request('GET', `${NS}/pods/web/log?container=missing`);
    expect(missing.json()).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource ( pods/log web)',
      details: { name: 'web', kind: 'pods/log' },
    });
  });

  it('holds a followed log back while its client does not read, then streams the rest', async () => {
    const { ca, cert, key } = verifying.credentials;
    const url = new URL(verifying.url);
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca, cert, key, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    let received = 0;
    const firstBytes = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.write(`GET ${NS}/pods/web/log?container=app&follow=true HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    await firstBytes;
    socket.pause();
    const stalledAt = await settled(() => kubelet.followedBytes(), 500, 20_000);
    // Bounded: far short of what the kubelet would write, and held, not buffered, by the server.
    expect(stalledAt).toBeLessThan(STALLED_BOUND_BYTES);
    expect(stalledAt - received).toBeLessThan(STALLED_BOUND_BYTES);
    socket.resume();
    expect(
      await retryUntil(
        () => kubelet.followedBytes(),
        (bytes) => bytes > stalledAt + 64 * 1024 * 1024,
        20_000,
      ),
    ).toBeGreaterThan(stalledAt + 64 * 1024 * 1024);
    socket.destroy();
  });
});
