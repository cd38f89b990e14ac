/**
 * The HTTPS server's bounds on a request, in-process on a free loopback port: headers up to
 * 1 MiB (431 with a body past them), a whole request within `--request-timeout` (a body that
 * trickles in is cut off), and no time without a TLS handshake beyond the headers timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { createServer, MAX_HEADER_BYTES, type CapstanServer } from '../../server/app';
import { DEFAULT_OPTIONS } from '../../server/config/flags';
import { readBody } from '../../server/request/body';
import { generatedPki, type Pki } from '../../server/pki/pki';
import { httpsRequest } from '../helpers/https-client';
import { waitUntil } from '../helpers/wait-for';

const REQUEST_TIMEOUT_MS = 1_500;

let dataDir: string;
let pki: Pki;
let server: CapstanServer;
let port: number;
let baseUrl: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'capstan-bounds-'));
  pki = await generatedPki({ dataDir, bindAddress: '127.0.0.1' });
  server = createServer({
    options: { ...DEFAULT_OPTIONS, securePort: 0, dataDir, shutdownDelayMs: 0 },
    tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem },
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    routes: (app) => {
      app.post('/echo-size', async (req, res) => {
        const body = await readBody(req);
        res.json({ bytes: body.length });
      });
    },
  });
  const listening = await server.listen();
  port = listening.port;
  baseUrl = listening.url;
});

afterAll(async () => {
  await server.shutdown();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Writes raw bytes over TLS and collects what comes back until the server closes. */
function rawTls(write: (socket: ReturnType<typeof tlsConnect>) => void): Promise<{ text: string; elapsedMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = tlsConnect(
      { host: '127.0.0.1', port, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem },
      () => write(socket),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () =>
      resolve({ text: Buffer.concat(chunks).toString('latin1'), elapsedMs: Date.now() - started }),
    );
    socket.on('error', reject);
  });
}

test('a 70 KB query is served; headers past 1 MiB get 431 with a body, not a reset', async () => {
  const selector = `a in (${'x,'.repeat(35_000)}y)`;
  const long = await httpsRequest({
    url: `${baseUrl}/api/v1/namespaces/x/configmaps?labelSelector=${encodeURIComponent(selector)}`,
    caPem: pki.ca.certPem,
    identity: pki.admin,
  });
  // Answered (no route is mounted: 404), not reset.
  expect(long.status).toBe(404);

  const { text } = await rawTls((socket) =>
    socket.write(`GET /version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(MAX_HEADER_BYTES)}\r\n\r\n`),
  );
  expect(text).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  expect(text).toMatch(/\r\n\r\n431 Request Header Fields Too Large$/);
});

test('a body sent a byte at a time is cut off after --request-timeout', async () => {
  const { text, elapsedMs } = await rawTls((socket) => {
    socket.write(
      'POST /echo-size HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    );
    const timer = setInterval(() => (socket.writable ? socket.write('a') : clearInterval(timer)), 200);
    socket.on('close', () => clearInterval(timer));
  });
  expect(text).toMatch(/^HTTP\/1\.1 (408|504) /);
  // Node checks its request deadlines every second or so.
  expect(elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
  expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 5_000);
});

test("an idle kept-alive connection stays open past Node's 5 s default, as the reference keeps it 90 s: a request on it then is answered", async () => {
  const socket = tlsConnect({
    host: '127.0.0.1',
    port,
    ca: pki.ca.certPem,
    cert: pki.admin.certPem,
    key: pki.admin.keyPem,
  });
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('close', () => (closed = true));
  const answered = (count: number) =>
    waitUntil(
      `${count} answers`,
      () => (received.match(/HTTP\/1\.1 200/g) ?? []).length >= count || closed,
      10_000,
      20,
    );
  const request = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';
  try {
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    socket.write(request);
    await answered(1);
    // The point is the idle time itself: past Node's 5 s default, nothing may close the connection.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(closed).toBe(false);
    socket.write(request);
    await answered(2);
    expect((received.match(/HTTP\/1\.1 200/g) ?? []).length).toBe(2);
  } finally {
    socket.destroy();
  }
}, 15_000);

test('a connection that never starts its TLS handshake is closed within the headers timeout', async () => {
  const elapsedMs = await new Promise<number>((resolve, reject) => {
    const started = Date.now();
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.on('close', () => resolve(Date.now() - started));
    socket.on('error', reject);
  });
  // The headers timeout is bounded by --request-timeout here (1.5 s); Node's default held it 120 s.
  expect(elapsedMs).toBeLessThan(10_000);
}, 30_000);
