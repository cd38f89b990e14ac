/**
 * What Go's net/http answers before kube-apiserver's handlers (recorded from 1.34.4), and
 * Node's parser would answer otherwise or let through: the request line, `Host`, the target.
 * Written on raw TLS connections, since an HTTP client would not send them.
 */
import { sender, type Sender } from '../../corpus/send';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const server = inProcessServerForSuite();
let client: Sender;

beforeAll(() => {
  client = sender(server.url, server.credentials);
});

afterAll(() => client?.close());

const PATH = '/api/v1/namespaces/default/configmaps';

function raw(requestLine: string, headers: readonly string[]): string {
  return [requestLine, ...headers, 'Connection: close', '', ''].join('\r\n');
}

async function send(requestLine: string, headers: readonly string[] = ['Host: 127.0.0.1']) {
  return client.send({ method: 'GET', path: PATH, headers: {}, rawHead: raw(requestLine, headers) });
}

it.each([
  ['no Host on HTTP/1.1', `GET ${PATH} HTTP/1.1`, [], 400, '400 Bad Request: missing required Host header'],
  [
    'a Host with a space',
    `GET ${PATH} HTTP/1.1`,
    ['Host: 127.0.0.1, other'],
    400,
    '400 Bad Request: malformed Host header',
  ],
  ['a Host with a slash', `GET ${PATH} HTTP/1.1`, ['Host: a/b'], 400, '400 Bad Request: malformed Host header'],
  ['a version Go cannot read', `GET ${PATH} HTTP/1.01`, ['Host: 127.0.0.1'], 400, '400 Bad Request'],
  ['a space after the version', `GET ${PATH} HTTP/1.1 `, ['Host: 127.0.0.1'], 400, '400 Bad Request'],
  [
    'a major version past 1',
    `GET ${PATH} HTTP/3.0`,
    ['Host: 127.0.0.1'],
    505,
    '505 HTTP Version Not Supported: unsupported protocol version',
  ],
  [
    'two differing lengths',
    `POST ${PATH} HTTP/1.1`,
    ['Host: 127.0.0.1', 'Content-Length: 2', 'Content-Length: 3'],
    400,
    '400 Bad Request',
  ],
  [
    'a CONNECT to a host and port',
    'CONNECT example.com:443 HTTP/1.1',
    ['Host: 127.0.0.1'],
    404,
    '404 page not found\n',
  ],
  ['a CONNECT to a path outside the API', 'CONNECT /foo HTTP/1.1', ['Host: 127.0.0.1'], 404, '404 page not found\n'],
  ['a GET of *', 'GET * HTTP/1.1', ['Host: 127.0.0.1'], 404, '404 page not found\n'],
  ['OPTIONS *', 'OPTIONS * HTTP/1.1', ['Host: 127.0.0.1'], 200, ''],
  ['a path with a bad escape', `GET ${PATH}/%zz HTTP/1.1`, ['Host: 127.0.0.1'], 400, '400 Bad Request'],
  ['a path ending in half an escape', `GET ${PATH}/a%4 HTTP/1.1`, ['Host: 127.0.0.1'], 400, '400 Bad Request'],
  [
    'an absolute URL whose path has a bad escape',
    `GET https://127.0.0.1${PATH}/%zz HTTP/1.1`,
    ['Host: 127.0.0.1'],
    400,
    '400 Bad Request',
  ],
  [
    'an absolute URL with an unclosed [',
    `GET http://[::1${PATH} HTTP/1.1`,
    ['Host: 127.0.0.1'],
    400,
    '400 Bad Request',
  ],
  [
    'an absolute URL with a port of letters',
    `GET http://127.0.0.1:abc${PATH} HTTP/1.1`,
    ['Host: 127.0.0.1'],
    400,
    '400 Bad Request',
  ],
  [
    'an absolute URL with an ASCII escape in its host',
    `GET http://a%7a${PATH} HTTP/1.1`,
    ['Host: 127.0.0.1'],
    400,
    '400 Bad Request',
  ],
  ['a CONNECT to a host with an unclosed [', 'CONNECT [::1 HTTP/1.1', ['Host: 127.0.0.1'], 400, '400 Bad Request'],
  [
    "a space before a header name's colon",
    `GET ${PATH} HTTP/1.1`,
    ['Host: 127.0.0.1', 'X-A : b'],
    400,
    '400 Bad Request: invalid header name',
  ],
  [
    'a control byte in a header value',
    `GET ${PATH} HTTP/1.1`,
    ['Host: 127.0.0.1', 'X-A: b\x01c'],
    400,
    '400 Bad Request',
  ],
  ['a header line without a colon', `GET ${PATH} HTTP/1.1`, ['Host: 127.0.0.1', 'X-A'], 400, '400 Bad Request'],
])('answers %s as Go does', async (_case, requestLine, headers, code, body) => {
  const answer = await send(requestLine, headers);
  expect({ code: answer.code, body: answer.body }).toEqual({ code, body });
});

it('writes its refusals byte for byte as Go does: two headers, no Date, no chunks', async () => {
  const answer = await send(`GET ${PATH} HTTP/1.1`, []);
  expect([answer.head, answer.body]).toEqual([
    'HTTP/1.1 400 Bad Request: missing required Host header\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close',
    '400 Bad Request: missing required Host header',
  ]);
});

it('leaves a bad escape in the query, which Go does not unescape, to the API', async () => {
  const answer = await send(`GET ${PATH}?a=%zz HTTP/1.1`);
  expect(answer.code).toBe(200);
});

it('serves an absolute URL whose authority has user information and a port', async () => {
  const answer = await send(`GET http://user:pass@[::1]:6443${PATH} HTTP/1.1`);
  expect(answer.code).toBe(200);
});

it('serves a request whose target is an absolute URL by its path', async () => {
  const answer = await send(`GET https://127.0.0.1${PATH} HTTP/1.1`);
  expect(answer.code).toBe(200);
  expect(JSON.parse(answer.body)).toMatchObject({ kind: 'ConfigMapList' });
});

it('reads no body from an HTTP/1.0 request with a Transfer-Encoding, as Go ignores the coding', async () => {
  const create = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'chunked-1-0' } });
  const answer = await client.send({
    method: 'POST',
    path: PATH,
    headers: {},
    rawHead: raw(`POST ${PATH} HTTP/1.0`, [
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
    ]),
    body: `${create.length.toString(16)}\r\n${create}\r\n0\r\n\r\n`,
  });
  expect(answer.code).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({
    reason: 'BadRequest',
    message: expect.stringContaining('unexpected end of JSON input'),
  });
  expect((await server.request('GET', `${PATH}/chunked-1-0`)).status).toBe(404);
});

it('keeps a CONNECT to an API path for the API, which does not allow it', async () => {
  const answer = await send(`CONNECT ${PATH} HTTP/1.1`);
  expect(answer.code).toBe(405);
  expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed' });
});

it.each([
  ['empty', 'Origin: '],
  ['null', 'Origin: null'],
  ['not a URI', 'Origin: ::bad'],
])('refuses a WebSocket watch whose Origin is %s, as the handshake does, with a bare 403', async (_case, origin) => {
  const answer = await send(`GET ${PATH}?watch=true HTTP/1.1`, [
    'Host: 127.0.0.1',
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Version: 13',
    origin,
  ]);
  expect({ code: answer.code, body: answer.body }).toEqual({ code: 403, body: '' });
});
