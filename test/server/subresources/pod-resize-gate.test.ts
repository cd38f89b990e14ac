/**
 * With InPlacePodVerticalScaling off, pods/resize is not served at all: every verb on it is the
 * plain 404 of an unknown path and discovery lists the pod's other subresources only, as
 * kube-apiserver 1.34.4 answered with the gate off (fixtures/recorded-resize-gate-off.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

interface Recorded {
  readonly requests: readonly {
    readonly method: string;
    readonly contentType: string | null;
    readonly code: number;
    readonly status: unknown;
  }[];
  readonly podSubresources: readonly string[];
}

const recorded = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'recorded-resize-gate-off.json'), 'utf8'),
) as Recorded;
const NS = '/api/v1/namespaces/default/pods';

// This server runs no service-account controller, so no `default` account: its pods are not the point here.
const server = inProcessServerForSuite([
  '--disable-admission-plugins',
  'ServiceAccount',
  '--feature-gates',
  'InPlacePodVerticalScaling=false',
]);

beforeAll(async () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '100m' } } }] },
  };
  const create = await server.request('POST', NS, {
    body: JSON.stringify(pod),
    headers: { 'Content-Type': 'application/json' },
  });
  expect(create.status).toBe(201);
}, 30_000);

test.each(recorded.requests.map((request) => [request.method, request] as const))(
  '%s pods/resize is not found',
  async (method, { contentType, code, status }) => {
    const body =
      method === 'GET'
        ? undefined
        : method === 'PUT'
          ? (await server.request('GET', `${NS}/p`)).body
          : JSON.stringify({ spec: { containers: [{ name: 'c', resources: { requests: { cpu: '200m' } } }] } });
    const answer = await server.request(method, `${NS}/p/resize`, {
      ...(body === undefined ? {} : { body }),
      ...(contentType === null ? {} : { headers: { 'Content-Type': contentType } }),
    });
    expect({ code: answer.status, status: answer.json() }).toEqual({ code, status });
  },
);

test('discovery lists no pods/resize', async () => {
  const list = (await server.request('GET', '/api/v1')).json<{ resources: { name: string }[] }>();
  expect(list.resources.map((resource) => resource.name).filter((name) => name.startsWith('pods/'))).toEqual(
    recorded.podSubresources,
  );
});
