/**
 * Requests whose method Node's HTTP parser does not know (`FOO`), read and served as Go's
 * server serves them in front of kube-apiserver 1.34.4: through authentication, authorization
 * and routing (server/http/foreign-method.ts). Written on raw TLS connections, in pieces where
 * the point is how the head or body arrives; the reference's answers quoted were recorded from it.
 */
import { connect } from 'node:tls';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const server = inProcessServerForSuite();

const COLLECTION = '/api/v1/namespaces/default/configmaps';

interface Exchange {
  readonly code: number;
  readonly head: string;
  readonly body: string;
}

/** Writes the pieces one after another (a pause between them) and reads until the server closes the connection. */
function exchange(pieces: readonly (string | Buffer)[], { anonymous = false } = {}): Promise<Exchange> {
  const url = new URL(server.url);
  const { ca, cert, key } = server.credentials;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(
      { host: url.hostname, port: Number(url.port), ca, ...(anonymous ? {} : { cert, key }) },
      async () => {
        for (const [index, piece] of pieces.entries()) {
          if (index > 0) await new Promise((next) => setTimeout(next, 30));
          if (socket.writable) socket.write(piece);
        }
      },
    );
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status === null || end < 0) return reject(new Error(`no answer: ${JSON.stringify(text.slice(0, 200))}`));
      resolve({ code: Number(status[1]), head: text.slice(0, end), body: text.slice(end + 4) });
    });
  });
}

function head(requestLine: string, headers: readonly string[] = []): string {
  return [requestLine, 'Host: 127.0.0.1', ...headers, '', ''].join('\r\n');
}

function statusOf(answer: Exchange): { code: number; reason: string } {
  const body = /\r\ntransfer-encoding: chunked/i.test(answer.head) ? dechunked(answer.body) : answer.body;
  const { code, reason } = JSON.parse(body) as { code: number; reason: string };
  return { code, reason };
}

function dechunked(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

test('an API route refuses the method with a 405 Status, and the connection closes', async () => {
  const answer = await exchange([head(`FOO ${COLLECTION} HTTP/1.1`)]);
  expect(statusOf(answer)).toEqual({ code: 405, reason: 'MethodNotAllowed' });
  expect(answer.head).toMatch(/\r\nConnection: close/i);
});

test('authorization runs first: an anonymous user is forbidden the verb, as the reference answers', async () => {
  const answer = await exchange([head(`FOO ${COLLECTION} HTTP/1.1`)], { anonymous: true });
  expect(statusOf(answer)).toEqual({ code: 403, reason: 'Forbidden' });
});

test('a handler of the mux serves it as any method: /healthz', async () => {
  const answer = await exchange([head('FOO /healthz HTTP/1.1')]);
  expect([answer.code, answer.body]).toEqual([200, 'ok']);
});

test('a head that arrives in pieces, its end split between two, is read whole', async () => {
  const whole = head(`FOO ${COLLECTION} HTTP/1.1`, ['Accept: application/json']);
  const answer = await exchange([whole.slice(0, 2), whole.slice(2, 30), whole.slice(30, -3), whole.slice(-3)]);
  expect(statusOf(answer)).toEqual({ code: 405, reason: 'MethodNotAllowed' });
});

test('after requests sent with it on the connection, it is answered once their answers are written', async () => {
  // A slow first answer (a watch that ends at its timeout) holds the socket while the second is read.
  const watch = head(`GET ${COLLECTION}?watch=1&timeoutSeconds=1 HTTP/1.1`);
  const answer = await exchange([watch + head('GET /version HTTP/1.1') + head(`FOO ${COLLECTION} HTTP/1.1`)]);
  expect(answer.code).toBe(200);
  const codes = [...`${answer.head}\r\n\r\n${answer.body}`.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]);
  expect(codes).toEqual(['200', '200', '405']);
});

test('a head past 1 MiB is refused with 431 without waiting for its end', async () => {
  const line = `X-Filler: ${'a'.repeat(64 * 1024)}\r\n`;
  const answer = await exchange([`FOO ${COLLECTION} HTTP/1.1\r\nHost: 127.0.0.1\r\n`, ...Array(17).fill(line)]);
  expect(answer.code).toBe(431);
});

test('a body is taken as its Content-Length says: the bytes after it are not another request', async () => {
  const body = '{"a":1}';
  const answer = await exchange([
    head(`FOO ${COLLECTION} HTTP/1.1`, [`Content-Length: ${body.length}`]) + body.slice(0, 3),
    body.slice(3) + head('GET /version HTTP/1.1'),
  ]);
  expect(statusOf(answer)).toEqual({ code: 405, reason: 'MethodNotAllowed' });
  expect(answer.body).not.toContain('HTTP/1.1');
});

test('a chunked body is decoded and the request routed; the bytes after its last chunk are no request', async () => {
  const answer = await exchange([
    head(`FOO ${COLLECTION} HTTP/1.1`, ['Transfer-Encoding: chunked']) + '2\r\n{}',
    '\r\n0\r\n\r\n' + head('GET /version HTTP/1.1'),
  ]);
  expect(statusOf(answer)).toEqual({ code: 405, reason: 'MethodNotAllowed' });
  expect(answer.body).not.toContain('HTTP/1.1');
});

test('a handler of the mux serves it with its chunked body: /healthz', async () => {
  const answer = await exchange([
    head('FOO /healthz HTTP/1.1', ['Transfer-Encoding: chunked']) + '2\r\n{}\r\n0\r\n\r\n',
  ]);
  expect([answer.code, answer.body]).toEqual([200, 'ok']);
});

test('a bad chunk unread by the route: the route answers all the same, and the connection closes', async () => {
  // The reference answered 405 with Connection: close (Go fails to drain the body after it).
  const answer = await exchange([head(`FOO ${COLLECTION} HTTP/1.1`, ['Transfer-Encoding: chunked']) + 'zz\r\n{}\r\n']);
  expect(statusOf(answer)).toEqual({ code: 405, reason: 'MethodNotAllowed' });
  expect(answer.head).toMatch(/\r\nConnection: close/i);
});

test("a transfer coding other than chunked is Go's plain 501", async () => {
  const answer = await exchange([
    head(`FOO ${COLLECTION} HTTP/1.1`, ['Transfer-Encoding: gzip, chunked']) + '2\r\n{}\r\n0\r\n\r\n',
  ]);
  expect([answer.code, answer.body]).toEqual([501, 'Unsupported transfer encoding']);
});

test.each([
  ['a method that is no token', `F@O ${COLLECTION} HTTP/1.1`],
  ['a version Go cannot read', `FOO ${COLLECTION} HTTP/1.01`],
  ['no target', 'FOO  HTTP/1.1'],
])("%s is Go's plain 400", async (_label, requestLine) => {
  const answer = await exchange([head(requestLine)]);
  expect([answer.code, answer.body]).toEqual([400, '400 Bad Request']);
});
