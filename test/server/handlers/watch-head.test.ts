/**
 * A HEAD on a custom resource's watch, which the reference's custom resource handler serves as a
 * GET by its verb: the watch's 200 and headers, no body, and the connection left fit for the
 * next request. (kube-apiserver 1.34.4 answered these 200 with the watch's Content-Type and
 * neither Content-Length nor Transfer-Encoding; a built-in kind's watch is 405 to a HEAD.)
 */
import { connect, type TLSSocket } from 'node:tls';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { waitFor } from '../../helpers/wait-for';
import { widgetCRD } from '../apiextensions/fixtures';

const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

const server = inProcessServerForSuite();

beforeAll(async () => {
  const json = { headers: { 'content-type': 'application/json' } };
  const created = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    ...json,
    body: JSON.stringify(widgetCRD()),
  });
  expect(created.status).toBe(201);
  await waitFor('the widgets to be served', async () =>
    (await server.request('GET', WIDGETS)).status === 200 ? true : undefined,
  );
  const widget = await server.request('POST', WIDGETS, {
    ...json,
    body: JSON.stringify({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { color: 'red' },
    }),
  });
  expect(widget.status).toBe(201);
}, 60_000);

/** One connection that sends raw requests and reads what comes back, bytes and all. */
async function openConnection(): Promise<{ socket: TLSSocket; received: () => string }> {
  const url = new URL(server.url);
  const { ca, cert, key } = server.credentials;
  let received = '';
  const socket = await new Promise<TLSSocket>((resolve, reject) => {
    const opened = connect({ host: url.hostname, port: Number(url.port), ca, cert, key }, () => resolve(opened));
    opened.on('error', reject);
  });
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  return { socket, received: () => received };
}

test.each([
  ['the /watch/ path of an object', '/apis/example.com/v1/watch/namespaces/default/widgets/w1'],
  ['the /watch/ path of a collection', '/apis/example.com/v1/watch/namespaces/default/widgets'],
  ['?watch=true on a collection', `${WIDGETS}?watch=true`],
  ['?watch=true across namespaces', '/apis/example.com/v1/widgets?watch=true'],
])('a HEAD on %s answers the headers alone', async (_label, path) => {
  const { socket, received } = await openConnection();
  try {
    socket.write(`HEAD ${path} HTTP/1.1\r\nHost: capstan\r\n\r\n`);
    await waitFor('the HEAD answer', async () => (received().includes('\r\n\r\n') ? true : undefined));
    const head = received().slice(0, received().indexOf('\r\n\r\n'));
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head).toMatch(/^content-type: application\/json$/im);
    expect(head).not.toMatch(/^transfer-encoding:/im);

    // The next request on the connection gets its own answer, with nothing of the watch's before it.
    socket.write(`GET ${WIDGETS}/w1 HTTP/1.1\r\nHost: capstan\r\n\r\n`);
    await waitFor('the GET answer', async () => (/"name":"w1"/.test(received()) ? true : undefined));
    const after = received().slice(head.length + 4);
    expect(after.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    const body = after.slice(after.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toMatchObject({ kind: 'Widget', metadata: { name: 'w1' } });
  } finally {
    socket.destroy();
  }
});

test('a HEAD on a built-in kind’s watch is refused, as the reference routes it', async () => {
  const answer = await server.request('HEAD', '/api/v1/watch/namespaces/default/configmaps');
  expect(answer.status).toBe(405);
});
