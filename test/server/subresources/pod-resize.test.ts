/**
 * pods/resize over raw HTTPS against a whole replica in this process; expectations are what a
 * reference kube-apiserver v1.34.4 answered to the same patches.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const NS = '/api/v1/namespaces/default';

interface Pod {
  metadata: { labels?: Record<string, string>; generation?: number };
  spec: { activeDeadlineSeconds?: number; containers: Record<string, unknown>[] };
  status: { qosClass?: string };
}

describe('pods/resize', () => {
  // This server runs no service-account controller, so no `default` account: its pods are not the point here.
  const server = inProcessServerForSuite(['--disable-admission-plugins', 'ServiceAccount']);

  beforeAll(async () => {
    const pods = [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'burstable' },
        spec: {
          containers: [
            { name: 'c', image: 'busybox', resources: { requests: { cpu: '100m' }, limits: { cpu: '200m' } } },
          ],
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'besteffort' },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      },
    ];
    for (const pod of pods)
      expect(
        (
          await server.request('POST', `${NS}/pods`, {
            body: JSON.stringify(pod),
            headers: { 'Content-Type': 'application/json' },
          })
        ).status,
      ).toBe(201);
  }, 30_000);

  const resize = (name: string, body: unknown) =>
    server.request('PATCH', `${NS}/pods/${name}/resize`, {
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });

  it("changes the containers' resources and nothing else", async () => {
    const answer = await resize('burstable', {
      metadata: { labels: { x: 'y' } },
      spec: {
        activeDeadlineSeconds: 5,
        containers: [{ name: 'c', image: 'alpine', resources: { requests: { cpu: '150m' } } }],
      },
    });
    expect(answer.status).toBe(200);
    const pod = answer.json<Pod>();
    expect(pod.metadata.labels).toBeUndefined();
    expect(pod.spec.activeDeadlineSeconds).toBeUndefined();
    expect(pod.spec.containers).toEqual([
      {
        name: 'c',
        image: 'busybox',
        resources: { limits: { cpu: '200m' }, requests: { cpu: '150m' } },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'Always',
      },
    ]);
    expect(pod.metadata.generation).toBe(2);
    expect(pod.status.qosClass).toBe('Burstable');
  });

  it('refuses a change of QoS class with the reference message', async () => {
    const answer = await resize('besteffort', {
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: '150m' } } }] },
    });
    expect(answer.status).toBe(422);
    expect(answer.json()).toMatchObject({
      message:
        'Pod "besteffort" is invalid: spec: Invalid value: "BestEffort": Pod QOS Class may not change as a result of resizing',
      reason: 'Invalid',
    });
  });

  it('is in discovery with the reference verbs', async () => {
    const list = (await server.request('GET', '/api/v1')).json<{ resources: Record<string, unknown>[] }>();
    expect(list.resources.find((resource) => resource.name === 'pods/resize')).toEqual({
      name: 'pods/resize',
      singularName: '',
      namespaced: true,
      kind: 'Pod',
      verbs: ['get', 'patch', 'update'],
    });
  });
});
