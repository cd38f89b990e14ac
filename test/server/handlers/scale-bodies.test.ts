/**
 * The bodies of scale writes as kube-apiserver 1.34.4 answered them (fixtures/scale-bodies.json):
 * whatever the parent, a PUT's body is an autoscaling/v1 Scale, typed (int32 replicas, strict
 * fields), of that kind and version only (another kind, version or unknown group read as the
 * reference's scheme words them), naming the URL's object, its uid a precondition; a patch's
 * result refused for its kind is the 422 on `patch` with the decoder's own words. Under a custom resource every undecodable Scale reads as the
 * reference's scheme without the Scale type, and strategic merge is not offered. HEAD is 405 on a
 * built-in kind's scale and served as GET for a custom resource, whose handler goes by verb.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from '../../helpers/server';
import { waitFor } from '../../helpers/wait-for';
import { sender, type Sender } from '../../corpus/send';

interface Step {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

interface Answer {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  /** Absent for a HEAD, which sends no body. */
  readonly contentType?: string;
  readonly body?: string;
  readonly code: number;
  readonly reason: string;
  readonly message: string;
}

const FIXTURE: { readonly setup: readonly Step[]; readonly answers: readonly Answer[] } = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'scale-bodies.json'), 'utf8'),
);

/** What differs between any two servers: uids, resource versions, times. */
function comparable(message: string): string {
  return message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
    .replace(/(resourceVersion\\?"?:\\?")\d+/g, '$1<rv>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>');
}

let server: TestServer;
let client: Sender;

beforeAll(async () => {
  server = await startServer();
  client = sender(server.url, server.credentials);
  for (const step of FIXTURE.setup) {
    const answer = await client.send({
      method: step.method,
      path: step.path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(step.body),
    });
    expect(answer.code).toBe(201);
    if (step.path.endsWith('/customresourcedefinitions'))
      await waitFor('the widgets to be served', async () => {
        const listed = await client.send({
          method: 'GET',
          path: '/apis/example.com/v1/namespaces/scale/widgets',
          headers: {},
        });
        return listed.code === 200 ? true : undefined;
      });
  }
}, 120_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

test('the fixture holds the reference answers', () => {
  expect(FIXTURE.answers.length).toBeGreaterThan(20);
});

test.each(FIXTURE.answers.map((answer) => [answer.label, answer] as const))('%s', async (_label, recorded) => {
  const answer = await client.send({
    method: recorded.method,
    path: recorded.path,
    headers: recorded.contentType === undefined ? {} : { 'content-type': recorded.contentType },
    body: recorded.body,
  });
  // A HEAD answer has no body.
  const status = (answer.body === '' ? {} : JSON.parse(answer.body)) as { kind?: string; message?: string };
  expect({
    code: answer.code,
    reason: answer.reason,
    message: comparable(status.kind === 'Status' ? (status.message ?? '') : ''),
  }).toEqual({ code: recorded.code, reason: recorded.reason, message: comparable(recorded.message) });
});
