/**
 * The server's index, `/`: the paths it lists, compared with what kube-apiserver 1.34.4 listed
 * (recorded in root-paths-1.34.4.json), through the real executable, so that every part that
 * names paths (discovery, OpenAPI, health, metrics, the issuer's discovery) is there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from '../../helpers/server';
import { waitUntil } from '../../helpers/wait-for';

const recorded = JSON.parse(readFileSync(join(__dirname, 'root-paths-1.34.4.json'), 'utf8')) as { paths: string[] };

/**
 * What the reference lists and capstan does not serve yet: the hook of the storage object count
 * tracker; and the legacy token tracking hook, since that controller runs on the lease holder
 * only, not in each replica's start. Each answers 404 here; they are named so that the test
 * fails when one appears.
 */
const NOT_SERVED = ['healthz', 'livez', 'readyz'].flatMap((endpoint) =>
  ['storage-object-count-tracker-hook', 'start-legacy-token-tracking-controller'].map(
    (hook) => `/${endpoint}/poststarthook/${hook}`,
  ),
);

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
  // The legacy (v1.) APIServices are written after the server starts listening.
  await waitUntil(
    'the server to be ready',
    async () => (await server.request('GET', '/readyz')).status === 200,
    30_000,
  );
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

it('lists the paths the reference lists, sorted, as Go indents them', async () => {
  const answer = await server.request('GET', '/');
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toBe('application/json');
  expect(answer.body.startsWith('{\n  "paths": [\n    "/.well-known/openid-configuration",\n')).toBe(true);
  const { paths } = JSON.parse(answer.body) as { paths: string[] };
  expect(paths).toEqual([...paths].sort());
  expect(paths).toEqual(recorded.paths.filter((path) => !NOT_SERVED.includes(path)));
});

it('serves every path it lists but none of those it does not', async () => {
  const { paths } = JSON.parse((await server.request('GET', '/')).body) as { paths: string[] };
  const statuses = await Promise.all(paths.map(async (path) => [path, (await server.request('GET', path)).status]));
  expect(statuses.filter(([, status]) => status === 404)).toEqual([]);
  for (const path of NOT_SERVED) expect((await server.request('GET', path)).status).toBe(404);
});

it('answers /index.html and any method alike, as the reference', async () => {
  const listing = (await server.request('GET', '/')).body;
  for (const [method, path] of [
    ['GET', '/index.html'],
    ['POST', '/'],
    ['DELETE', '/index.html'],
    ['GET', '/?watch=true'],
  ]) {
    const answer = await server.request(method, path);
    expect({ method, path, status: answer.status, body: answer.body }).toEqual({
      method,
      path,
      status: 200,
      body: listing,
    });
  }
  const head = await server.request('HEAD', '/');
  expect({ status: head.status, body: head.body }).toEqual({ status: 200, body: '' });
});
