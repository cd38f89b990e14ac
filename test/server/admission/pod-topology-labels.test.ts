/**
 * PodTopologyLabels behind its alpha gate (PodTopologyLabelsAdmission): a pod created on a node,
 * or bound to one through pods/binding as the scheduler does, carries the node's zone and region
 * labels; with the gate off (the 1.34 default) nothing is copied.
 */
import { startServer, type TestServer } from '../../helpers/server';

jest.setTimeout(120_000);

const SETUP = `apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: z1, topology.kubernetes.io/region: r1, other: x}}
`;
const pod = (name: string, nodeName?: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'a' } },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] },
  });

async function labelsAfterPlacement(server: TestServer): Promise<{ created: object; bound: object }> {
  expect((await server.kubectl(['apply', '-f', '-'], { input: SETUP })).code).toBe(0);
  expect((await server.kubectl(['create', '-f', '-'], { input: pod('on-node', 'n1') })).code).toBe(0);
  expect((await server.kubectl(['create', '-f', '-'], { input: pod('scheduled') })).code).toBe(0);
  const binding = {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: 'scheduled', namespace: 'default' },
    target: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
  };
  expect(
    (
      await server.request('POST', '/api/v1/namespaces/default/pods/scheduled/binding', {
        body: JSON.stringify(binding),
        headers: { 'content-type': 'application/json' },
      })
    ).status,
  ).toBe(201);
  const labels = async (name: string) =>
    (await server.request('GET', `/api/v1/namespaces/default/pods/${name}`)).json<{ metadata: { labels: object } }>()
      .metadata.labels;
  return { created: await labels('on-node'), bound: await labels('scheduled') };
}

describe('PodTopologyLabels', () => {
  it("copies the node's zone and region onto pods placed on it, with its gate on", async () => {
    const server = await startServer({ flags: ['--feature-gates=PodTopologyLabelsAdmission=true'] });
    try {
      const topology = { app: 'a', 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1' };
      expect(await labelsAfterPlacement(server)).toEqual({ created: topology, bound: topology });
    } finally {
      await server.stop();
    }
  });

  it('copies nothing with its gate off, the 1.34 default', async () => {
    const server = await startServer();
    try {
      expect(await labelsAfterPlacement(server)).toEqual({ created: { app: 'a' }, bound: { app: 'a' } });
    } finally {
      await server.stop();
    }
  });
});
