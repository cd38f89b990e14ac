/**
 * Watches over WebSocket, as the reference 1.34.4 answered them (recorded 2026-11-29): one
 * message per event (JSON text with its newline, protobuf binary without the length prefix),
 * a close with 1000 at the watch's end, and x/net/websocket's bare refusals of a bad handshake.
 */
import WebSocket from 'ws';
import { sender, type Sender } from '../../corpus/send';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { waitUntil } from '../../helpers/wait-for';

const server = inProcessServerForSuite();
let client: Sender;

beforeAll(async () => {
  client = sender(server.url, server.credentials);
  const created = await server.request('POST', '/api/v1/namespaces/default/configmaps', {
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' }, data: { a: 'b' } }),
    headers: { 'Content-Type': 'application/json' },
  });
  expect(created.status).toBe(201);
});

afterAll(() => client?.close());

const PATH = '/api/v1/namespaces/default/configmaps';

interface Received {
  readonly status?: number;
  readonly protocol?: string;
  readonly messages: { readonly data: Buffer; readonly isBinary: boolean }[];
  readonly closeCode?: number;
  readonly refused?: number;
}

/** Opens a WebSocket watch and collects what it receives until it closes, or `until` says enough. */
function watchOverWebSocket(options: {
  path: string;
  headers?: Record<string, string>;
  protocols?: string[];
  until?: (received: Received) => boolean;
  onOpen?: () => Promise<void>;
}): Promise<Received> {
  return new Promise((resolve, reject) => {
    const received: { -readonly [K in keyof Received]: Received[K] } = { messages: [] };
    const ws = new WebSocket(server.url.replace('https:', 'wss:') + options.path, options.protocols, {
      ...server.credentials,
      headers: { Origin: 'https://example.com', ...options.headers },
    });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no end in time: ${JSON.stringify(received)}`));
    }, 20_000);
    const done = () => {
      clearTimeout(timer);
      resolve(received);
    };
    ws.on('upgrade', (response) => {
      received.status = response.statusCode;
      const protocol = response.headers['sec-websocket-protocol'];
      if (typeof protocol === 'string') received.protocol = protocol;
    });
    ws.on('open', () => void options.onOpen?.().catch(reject));
    ws.on('unexpected-response', (_request, response) => {
      received.refused = response.statusCode;
      response.resume();
      done();
    });
    ws.on('message', (data, isBinary) => {
      received.messages.push({ data, isBinary });
      if (options.until?.(received)) {
        ws.close(1000);
      }
    });
    ws.on('close', (code) => {
      received.closeCode = code;
      done();
    });
    ws.on('error', () => undefined);
  });
}

it('sends each event as one JSON text message, newline and all, and closes with 1000 at the timeout', async () => {
  const received = await watchOverWebSocket({
    path: `${PATH}?watch=1&timeoutSeconds=2`,
    onOpen: async () => {
      const answer = await server.request('POST', PATH, {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'second' } }),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(answer.status).toBe(201);
    },
  });
  expect(received.status).toBe(101);
  expect(received.closeCode).toBe(1000);
  expect(received.messages.every((message) => !message.isBinary)).toBe(true);
  const texts = received.messages.map((message) => message.data.toString('utf8'));
  expect(texts.every((text) => text.endsWith('}\n'))).toBe(true);
  const events = texts.map((text) => JSON.parse(text) as { type: string; object: { metadata: { name: string } } });
  expect(events.map((event) => [event.type, event.object.metadata.name])).toEqual([
    ['ADDED', 'first'],
    ['ADDED', 'second'],
  ]);
});

it('sends protobuf events as binary messages without the stream length prefix', async () => {
  const received = await watchOverWebSocket({
    path: `/api/v1/watch/namespaces/default/configmaps/first?timeoutSeconds=1`,
    headers: { Accept: 'application/vnd.kubernetes.protobuf' },
  });
  expect(received.status).toBe(101);
  expect(received.messages).toHaveLength(1);
  const [{ data, isBinary }] = received.messages;
  expect(isBinary).toBe(true);
  // Field 1 (type), length 5, "ADDED": the WatchEvent itself, first byte on.
  expect(data.subarray(0, 7)).toEqual(Buffer.from([0x0a, 0x05, ...Buffer.from('ADDED')]));
  expect(data.includes(Buffer.from('k8s\u0000'))).toBe(true);
});

it('echoes the one subprotocol offered', async () => {
  const received = await watchOverWebSocket({
    path: `${PATH}?watch=true&fieldSelector=metadata.name%3Dfirst`,
    protocols: ['anything.example'],
    until: (so) => so.messages.length === 1,
  });
  expect(received.status).toBe(101);
  expect(received.protocol).toBe('anything.example');
  expect(JSON.parse(received.messages[0].data.toString('utf8'))).toMatchObject({ type: 'ADDED' });
});

it('stops the watch when the client closes', async () => {
  const watching = async () => {
    const text = await server.plane.metrics.registry.getSingleMetricAsString('apiserver_longrunning_requests');
    const sample = /verb="WATCH",group="",version="v1",resource="configmaps"[^}]*\} (\d+)/.exec(text);
    return Number(sample?.[1] ?? 0);
  };
  const received = await watchOverWebSocket({
    path: `${PATH}?watch=true`,
    until: (so) => so.messages.length === 1,
  });
  expect(received.closeCode).toBe(1000);
  await waitUntil('the watch to end', async () => (await watching()) === 0, 5_000);
});

it('authorizes before the handshake: a refused user gets a Status, not a WebSocket', async () => {
  const anonymous = new WebSocket(server.url.replace('https:', 'wss:') + `${PATH}?watch=1`, undefined, {
    ca: server.credentials.ca,
    headers: { Origin: 'https://example.com' },
  });
  const status = await new Promise<number | undefined>((resolve) => {
    anonymous.on('unexpected-response', (_request, response) => {
      response.resume();
      resolve(response.statusCode);
    });
    anonymous.on('open', () => resolve(101));
    anonymous.on('error', () => undefined);
  });
  anonymous.terminate();
  expect(status).toBe(403);
});

function handshake(headers: readonly string[]): string {
  return [`GET ${PATH}?watch=1&timeoutSeconds=1 HTTP/1.1`, 'Host: 127.0.0.1', ...headers, '', ''].join('\r\n');
}

const UPGRADE = ['Upgrade: websocket', 'Connection: Upgrade'];
const KEY = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==';

it.each([
  [
    'no key',
    [...UPGRADE, 'Origin: http://x', 'Sec-WebSocket-Version: 13'],
    'HTTP/1.1 400 Bad Request\r\n\r\nmismatch challenge/response',
  ],
  [
    'version 12',
    [...UPGRADE, 'Origin: http://x', KEY, 'Sec-WebSocket-Version: 12'],
    'HTTP/1.1 400 Bad Request\r\nSec-WebSocket-Version: 13\r\n\r\nmissing or bad WebSocket Version',
  ],
  [
    'version 12 and no Origin (the version is checked first)',
    [...UPGRADE, KEY, 'Sec-WebSocket-Version: 12'],
    'HTTP/1.1 400 Bad Request\r\nSec-WebSocket-Version: 13\r\n\r\nmissing or bad WebSocket Version',
  ],
  [
    'two subprotocols',
    [...UPGRADE, 'Origin: http://x', KEY, 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Protocol: a, b'],
    'HTTP/1.1 400 Bad Request\r\n\r\n',
  ],
])('refuses a handshake with %s as x/net/websocket does', async (_case, headers, answer) => {
  const got = await client.send({ method: 'GET', path: PATH, headers: {}, rawHead: handshake(headers) });
  expect(got.error).toBeUndefined();
  expect(got.code).toBe(Number(answer.slice(9, 12)));
  expect(got.body).toBe(answer.slice(answer.indexOf('\r\n\r\n') + 4));
});
