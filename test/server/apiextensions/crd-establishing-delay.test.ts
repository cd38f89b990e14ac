/**
 * `--apiserver-count` over 1: the reference's guard for replicas holds a new CRD Installing for
 * 5 s after its names are accepted, then Establishes it, so that every server has seen it. A
 * single server (the default, 1) establishes it at once.
 */
import { startServer, type TestServer } from '../../helpers/server';
import { waitFor } from '../../helpers/wait-for';
import { widgetCRD } from './fixtures';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ flags: ['--apiserver-count=3'] });
});
afterAll(async () => {
  await server?.stop();
});

async function established(): Promise<Condition | undefined> {
  const crd = (
    await server.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')
  ).json<{
    status?: { conditions?: Condition[] };
  }>();
  return crd.status?.conditions?.find((condition) => condition.type === 'Established');
}

it('a new CRD is Installing for 5 s, then Established', async () => {
  const created = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: JSON.stringify(widgetCRD()),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  const started = Date.now();
  const installing = await waitFor('the names to be accepted', async () => {
    const condition = await established();
    return condition?.reason === 'Installing' ? condition : undefined;
  });
  expect(installing).toMatchObject({ status: 'False', message: 'the initial names have been accepted' });
  const done = await waitFor(
    'the CRD to be established',
    async () => {
      const condition = await established();
      return condition?.status === 'True' ? condition : undefined;
    },
    15_000,
    100,
  );
  expect(done).toMatchObject({ reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
  expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
}, 30_000);
