/**
 * The one webhook POST against an HTTPS server the test serves: what reaches the webhook, the
 * bound on its answer, the deadline of the whole call (a webhook that keeps the connection busy
 * with a trickle of bytes must not hold the caller past it) and the check of the name a Service
 * endpoint's certificate carries, and which certificates a caBundle makes trusted.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCa, issueLeaf } from '../../../server/pki/certificates';
import { postJson, type PostDestination } from '../../../server/webhook-client/post-json';

const SERVICE_NAME = 'hook.webhooks.svc';

let server: Server;
let base: URL;
let ca: string;
let leafPem: string;
const seen: Array<{ path: string; authorization?: string; contentType?: string; body: string }> = [];

beforeAll(async () => {
  const authority = await issueCa({ commonName: 'post-json-ca', validDays: 1 });
  const leaf = await issueLeaf({
    ca: authority,
    subject: 'CN=hook',
    usage: 'server',
    ipAddresses: ['127.0.0.1'],
    dnsNames: [SERVICE_NAME],
    validDays: 1,
  });
  ca = authority.certPem;
  leafPem = leaf.certPem;
  server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (req.url === '/large') {
        res.end(Buffer.alloc(2 << 20, 'x'));
      } else if (req.url?.startsWith('/wait/')) {
        // /wait/<status>/<Retry-After>/<times>: answered so that many times, then 201.
        const [, , status, after, times] = req.url.split('/');
        if (seen.filter((call) => call.path === req.url).length <= Number(times)) {
          res.writeHead(Number(status), { 'Retry-After': after }).end('busy');
          return;
        }
        res.writeHead(201).end('{"ok":true}');
      } else if (req.url === '/trickle') {
        // A byte every 50 ms: never idle long enough for a socket timeout, never done.
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const drip = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(drip));
      } else {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end('{"ok":true}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const at = (path: string, extra: Partial<PostDestination> = {}): PostDestination => ({
  url: new URL(path, base),
  ca,
  ...extra,
});

test('the body, its type and the bearer token reach the webhook; its status and body come back', async () => {
  const answer = await postJson(at('/review', { token: 'secret-token' }), '{"kind":"TokenReview"}', {
    timeoutMs: 5_000,
  });
  expect(answer.status).toBe(201);
  expect(answer.body.toString('utf8')).toBe('{"ok":true}');
  expect(seen.at(-1)).toEqual({
    path: '/review',
    authorization: 'Bearer secret-token',
    contentType: 'application/json',
    body: '{"kind":"TokenReview"}',
  });
});

test('an answer past the bound fails the call and is not kept', async () => {
  await expect(postJson(at('/large'), '{}', { timeoutMs: 5_000, maxAnswerBytes: 1 << 20 })).rejects.toThrow(
    `Post "${base.href}large": the answer is larger than 1048576 bytes`,
  );
  await expect(postJson(at('/large'), '{}', { timeoutMs: 5_000, maxAnswerBytes: 4 << 20 })).resolves.toMatchObject({
    status: 200,
  });
});

test('an answer of 429 or 5xx naming its wait is asked again after it, ten times at most, within the deadline', async () => {
  const calls = (path: string) => seen.filter((call) => call.path === path).length;
  let began = Date.now();
  await expect(postJson(at('/wait/429/1/2'), '{}', { timeoutMs: 10_000 })).resolves.toMatchObject({ status: 201 });
  expect(Date.now() - began).toBeGreaterThanOrEqual(2_000);
  expect(calls('/wait/429/1/2')).toBe(3);
  await expect(postJson(at('/wait/503/0/20'), '{}', { timeoutMs: 10_000 })).resolves.toMatchObject({ status: 503 });
  expect(calls('/wait/503/0/20')).toBe(11);
  // Neither a 4xx but 429, nor a wait that is not whole seconds, nor an answer without one is asked again.
  for (const path of ['/wait/409/0/1', '/wait/500/soon/1', '/wait/500/1.5/1']) {
    await expect(postJson(at(path), '{}', { timeoutMs: 10_000 })).resolves.toMatchObject({
      status: Number(path.split('/')[2]),
    });
    expect(calls(path)).toBe(1);
  }
  began = Date.now();
  await expect(postJson(at('/wait/503/5/1'), '{}', { timeoutMs: 600 })).rejects.toThrow(
    `Post "${base.href}wait/503/5/1": context deadline exceeded`,
  );
  expect(Date.now() - began).toBeGreaterThanOrEqual(590);
  expect(Date.now() - began).toBeLessThan(3_000);
  expect(calls('/wait/503/5/1')).toBe(1);
});

test('the deadline ends the whole call, even while the webhook keeps sending', async () => {
  const began = Date.now();
  await expect(postJson(at('/trickle'), '{}', { timeoutMs: 400 })).rejects.toThrow(
    `Post "${base.href}trickle": context deadline exceeded`,
  );
  expect(Date.now() - began).toBeLessThan(3_000);
});

test('a Service endpoint is trusted only under the name its certificate carries', async () => {
  await expect(
    postJson(at('/review', { serverName: SERVICE_NAME }), '{}', { timeoutMs: 5_000 }),
  ).resolves.toMatchObject({ status: 201 });
  await expect(
    postJson(at('/review', { serverName: 'other.webhooks.svc' }), '{}', { timeoutMs: 5_000 }),
  ).rejects.toThrow(/^Post "https:\/\/127\.0\.0\.1:\d+\/review": Hostname\/IP does not match certificate's altnames/);
});

test('a certificate no given CA vouches for is refused unless verification is turned off', async () => {
  await expect(postJson({ url: new URL('/review', base) }, '{}', { timeoutMs: 5_000 })).rejects.toThrow(
    /^Post "https:\/\/127\.0\.0\.1:\d+\/review": /,
  );
  await expect(
    postJson({ url: new URL('/review', base), insecureSkipTLSVerify: true }, '{}', { timeoutMs: 5_000 }),
  ).resolves.toMatchObject({ status: 201 });
});

test('a caBundle holding the serving certificate itself trusts it, as Go trusts any certificate of its pool', async () => {
  // envtest's webhook caBundle is the webhook's serving certificate, not the CA that signed it.
  await expect(postJson(at('/review', { ca: leafPem }), '{}', { timeoutMs: 5_000 })).resolves.toMatchObject({
    status: 201,
  });
  const other = await issueCa({ commonName: 'other-ca', validDays: 1 });
  const stranger = await issueLeaf({
    ca: other,
    subject: 'CN=hook',
    usage: 'server',
    ipAddresses: ['127.0.0.1'],
    validDays: 1,
  });
  await expect(postJson(at('/review', { ca: stranger.certPem }), '{}', { timeoutMs: 5_000 })).rejects.toThrow(
    /^Post "https:\/\/127\.0\.0\.1:\d+\/review": /,
  );
});
