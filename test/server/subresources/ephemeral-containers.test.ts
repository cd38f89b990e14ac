/**
 * pods/ephemeralcontainers through kubectl 1.33 (`kubectl debug`) and raw HTTPS against a whole
 * replica in this process; expectations are what a reference kube-apiserver v1.34.4 answered.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const NS = '/api/v1/namespaces/default';

interface Pod {
  kind: string;
  metadata: { labels?: Record<string, string>; managedFields?: { manager: string; subresource?: string }[] };
  spec: { activeDeadlineSeconds?: number; ephemeralContainers?: Record<string, unknown>[] };
}

describe('pods/ephemeralcontainers', () => {
  // This server runs no service-account controller, so no `default` account: its pods are not the point here.
  const server = inProcessServerForSuite(['--disable-admission-plugins', 'ServiceAccount']);

  beforeAll(async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'target', labels: { app: 'a' } },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    };
    expect(
      (
        await server.request('POST', `${NS}/pods`, {
          body: JSON.stringify(pod),
          headers: { 'Content-Type': 'application/json' },
        })
      ).status,
    ).toBe(201);
  }, 30_000);

  const patch = (type: string, body: unknown) =>
    server.request('PATCH', `${NS}/pods/target/ephemeralcontainers`, {
      body: JSON.stringify(body),
      headers: { 'Content-Type': `application/${type}+json` },
    });

  it('adds an ephemeral container and changes nothing else', async () => {
    const answer = await patch('strategic-merge-patch', {
      metadata: { labels: { x: 'y' } },
      spec: {
        activeDeadlineSeconds: 5,
        ephemeralContainers: [{ name: 'debug', image: 'busybox', targetContainerName: 'c' }],
      },
    });
    expect(answer.status).toBe(200);
    const pod = answer.json<Pod>();
    expect(pod.kind).toBe('Pod');
    expect(pod.metadata.labels).toEqual({ app: 'a' });
    expect(pod.spec.activeDeadlineSeconds).toBeUndefined();
    expect(pod.spec.ephemeralContainers).toEqual([
      {
        name: 'debug',
        image: 'busybox',
        resources: {},
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'Always',
        targetContainerName: 'c',
      },
    ]);
    expect(pod.metadata.managedFields?.map(({ subresource }) => subresource ?? '')).toContain('ephemeralcontainers');
    const read = await server.request('GET', `${NS}/pods/target/ephemeralcontainers`);
    expect(read.status).toBe(200);
    expect(read.json<Pod>().spec.ephemeralContainers).toEqual(pod.spec.ephemeralContainers);
  });

  it('adds one with kubectl debug', async () => {
    const debug = await server.kubectl(['debug', 'target', '--image=busybox', '--container=kdebug', '--attach=false']);
    expect(debug.code).toBe(0);
    const pod = (await server.request('GET', `${NS}/pods/target`)).json<Pod>();
    expect(pod.spec.ephemeralContainers?.map((container) => container.name)).toEqual(['debug', 'kdebug']);
  });

  it('refuses to change or remove one, as the reference does', async () => {
    const changed = await patch('json-patch', [
      { op: 'replace', path: '/spec/ephemeralContainers/0/image', value: 'alpine' },
    ]);
    expect(changed.status).toBe(422);
    // The reference appends a diff of its Go structs after this first line.
    expect(changed.json<{ message: string }>().message).toMatch(
      /^Pod "target" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debug" may not be changed\n/,
    );
    const removed = await patch('json-patch', [{ op: 'remove', path: '/spec/ephemeralContainers' }]);
    expect(removed.status).toBe(422);
    expect(removed.json()).toMatchObject({
      message:
        'Pod "target" is invalid: [spec.ephemeralContainers: Forbidden: existing ephemeral containers "debug" may not be removed\n, ' +
        'spec.ephemeralContainers: Forbidden: existing ephemeral containers "kdebug" may not be removed\n]',
      reason: 'Invalid',
      details: { name: 'target', kind: 'Pod' },
    });
  });

  it('drops what a gate off by default owns (ContainerRestartRules), as the pod does', async () => {
    const answer = await patch('strategic-merge-patch', {
      spec: { ephemeralContainers: [{ name: 'gated', image: 'busybox', restartPolicy: 'Never' }] },
    });
    expect(answer.status).toBe(200);
    const gated = answer.json<Pod>().spec.ephemeralContainers?.find((container) => container.name === 'gated');
    expect(gated).toBeDefined();
    expect(gated).not.toHaveProperty('restartPolicy');
  });

  it('refuses a variable read from a file once EnvFiles (off) has dropped its only source', async () => {
    const json = { 'Content-Type': 'application/json' };
    const pod = { metadata: { name: 'reader' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    expect((await server.request('POST', `${NS}/pods`, { body: JSON.stringify(pod), headers: json })).status).toBe(201);
    const answer = await server.request('PATCH', `${NS}/pods/reader/ephemeralcontainers`, {
      body: JSON.stringify({
        spec: {
          ephemeralContainers: [
            {
              name: 'reads-file',
              image: 'busybox',
              env: [{ name: 'F', valueFrom: { fileKeyRef: { volumeName: 'v', path: 'p', key: 'K' } } }],
            },
          ],
        },
      }),
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    expect(answer.status).toBe(422);
    expect(answer.json<{ message: string }>().message).toBe(
      'Pod "reader" is invalid: spec.ephemeralContainers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
    );
  });

  it('answers 404 for a missing pod and is in discovery', async () => {
    const missing = await server.request('GET', `${NS}/pods/zz/ephemeralcontainers`);
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ message: 'pods "zz" not found' });
    const list = (await server.request('GET', '/api/v1')).json<{ resources: Record<string, unknown>[] }>();
    expect(list.resources.find((resource) => resource.name === 'pods/ephemeralcontainers')).toEqual({
      name: 'pods/ephemeralcontainers',
      singularName: '',
      namespaced: true,
      kind: 'Pod',
      verbs: ['get', 'patch', 'update'],
    });
  });
});
