/**
 * Admission plugins off by default, turned on by `--enable-admission-plugins`, against a real
 * server: each answer is the one kube-apiserver v1.34.4 gave for the same request with the same
 * plugins enabled (and NamespaceLifecycle disabled, so that NamespaceExists speaks).
 */
import { startServer, type TestServer } from '../../helpers/server';

const json = { 'content-type': 'application/json' };
const mergePatch = { 'content-type': 'application/merge-patch+json' };

describe('opt-in admission plugins', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({
      flags: [
        '--enable-admission-plugins=NamespaceExists,DenyServiceExternalIPs,LimitPodHardAntiAffinityTopology,ExtendedResourceToleration',
        '--disable-admission-plugins=NamespaceLifecycle,ServiceAccount',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function post(path: string, object: object): Promise<{ status: number; body: Record<string, unknown> }> {
    const answer = await server.request('POST', path, { body: JSON.stringify(object), headers: json });
    return { status: answer.status, body: JSON.parse(answer.body) };
  }

  it('NamespaceExists: nothing is written into a namespace that does not exist', async () => {
    const answer = await post('/api/v1/namespaces/nope/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
    });
    expect(answer).toMatchObject({
      status: 404,
      body: {
        reason: 'NotFound',
        message: 'namespaces "nope" not found',
        details: { name: 'nope', kind: 'namespaces' },
      },
    });
    expect((await server.request('GET', '/api/v1/namespaces/nope/configmaps/a')).status).toBe(404);
  });

  it('DenyServiceExternalIPs: no service gains an external IP, on create or update', async () => {
    const service = (name: string, externalIPs?: string[]) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec: { ports: [{ port: 80 }], ...(externalIPs ? { externalIPs } : {}) },
    });
    const refused = await post('/api/v1/namespaces/default/services', service('s', ['1.2.3.4']));
    expect(refused).toMatchObject({
      status: 403,
      body: {
        reason: 'Forbidden',
        message: 'services "s" is forbidden: Use of external IPs is denied by admission control',
      },
    });
    expect((await post('/api/v1/namespaces/default/services', service('s2'))).status).toBe(201);
    const patched = await server.request('PATCH', '/api/v1/namespaces/default/services/s2', {
      body: '{"spec":{"externalIPs":["1.2.3.4"]}}',
      headers: mergePatch,
    });
    expect(patched.status).toBe(403);
    expect(JSON.parse(patched.body).message).toBe(
      'services "s2" is forbidden: Use of external IPs is denied by admission control',
    );
  });

  it('LimitPodHardAntiAffinityTopology: required anti-affinity by node only', async () => {
    const pod = (name: string, topologyKey: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        containers: [{ name: 'c', image: 'i' }],
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { a: 'b' } }, topologyKey },
            ],
          },
        },
      },
    });
    expect(await post('/api/v1/namespaces/default/pods', pod('p1', 'zone'))).toMatchObject({
      status: 403,
      body: {
        message:
          'pods "p1" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey zone but only key kubernetes.io/hostname is allowed',
      },
    });
    expect((await post('/api/v1/namespaces/default/pods', pod('p2', 'kubernetes.io/hostname'))).status).toBe(201);
  });

  it('ExtendedResourceToleration: a pod asking for a device tolerates its taint', async () => {
    const answer = await post('/api/v1/namespaces/default/pods?dryRun=All', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p3' },
      spec: {
        containers: [
          { name: 'c', image: 'i', resources: { limits: { 'example.com/gpu': '1', cpu: '1' } } },
          {
            name: 'd',
            image: 'i',
            resources: {
              requests: { 'example.com/gpu': '1', 'a.io/x': '2' },
              limits: { 'example.com/gpu': '1', 'a.io/x': '2' },
            },
          },
        ],
      },
    });
    expect(answer.status).toBe(201);
    expect((answer.body.spec as { tolerations: object[] }).tolerations).toEqual([
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'a.io/x', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
    ]);
  });
});
