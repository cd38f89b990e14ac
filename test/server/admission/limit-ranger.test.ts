/**
 * LimitRanger through kubectl against a running capstan: a namespace's LimitRange defaults a
 * new pod's requests and limits and refuses containers, pods and claims outside its bounds, with
 * the objects and messages kube-apiserver v1.34.4 gives for the same LimitRange and requests.
 */
import { startServer, type TestServer } from '../../helpers/server';

const LIMIT_RANGE = `apiVersion: v1
kind: LimitRange
metadata: {name: lr, namespace: lref}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 100m, memory: 128Mi}
    max: {cpu: "1", memory: 1Gi}
    min: {cpu: 50m}
    maxLimitRequestRatio: {cpu: "10"}
  - type: Pod
    max: {cpu: "2"}
  - type: PersistentVolumeClaim
    max: {storage: 2Gi}
    min: {storage: 1Gi}
`;

const pod = (name: string, containers: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: lref}
spec:
  containers: ${containers}
`;

const claim = (name: string, storage: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}, namespace: lref}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: ${storage}}}
`;

describe('LimitRanger', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    expect((await server.kubectl(['create', 'namespace', 'lref'])).code).toBe(0);
    expect((await server.kubectl(['create', '-f', '-'], { input: LIMIT_RANGE })).code).toBe(0);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function refusal(yaml: string): Promise<string> {
    const result = await server.kubectl(['create', '-f', '-'], { input: yaml });
    expect(result.code).not.toBe(0);
    return result.stderr.trim();
  }

  it('gives a container without resources the defaults, and says so in the annotation', async () => {
    const result = await server.kubectl(['create', '-f', '-', '-o', 'json'], {
      input: pod('p4', '[{name: c, image: x}]'),
    });
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created.spec.containers[0].resources).toEqual({
      limits: { cpu: '500m', memory: '256Mi' },
      requests: { cpu: '100m', memory: '128Mi' },
    });
    expect(created.metadata.annotations).toEqual({
      'kubernetes.io/limit-ranger':
        'LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c',
    });
  });

  it('refuses a container and a pod over max with the reference messages, and stores nothing', async () => {
    expect(await refusal(pod('big', '[{name: c, image: x, resources: {limits: {cpu: "3"}}}]'))).toBe(
      'Error from server (Forbidden): error when creating "STDIN": pods "big" is forbidden: [maximum cpu usage per Container is 1, but limit is 3, maximum cpu usage per Pod is 2, but limit is 3]',
    );
    expect((await server.kubectl(['get', 'pod', 'big', '-n', 'lref'])).code).not.toBe(0);
    const three =
      '[{name: c, image: x, resources: {limits: {cpu: "1"}}},{name: d, image: x, resources: {limits: {cpu: "1"}}},{name: e, image: x, resources: {limits: {cpu: "1"}}}]';
    expect(await refusal(pod('pod2', three))).toBe(
      'Error from server (Forbidden): error when creating "STDIN": pods "pod2" is forbidden: maximum cpu usage per Pod is 2, but limit is 3',
    );
  });

  it('refuses a container under min and over the limit-to-request ratio', async () => {
    expect(
      await refusal(pod('small', '[{name: c, image: x, resources: {requests: {cpu: 10m}, limits: {cpu: 200m}}}]')),
    ).toBe(
      'Error from server (Forbidden): error when creating "STDIN": pods "small" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, cpu max limit to request ratio per Container is 10, but provided ratio is 20.000000]',
    );
  });

  it('leaves a pod older than the LimitRange updatable', async () => {
    expect((await server.kubectl(['create', 'namespace', 'lold'])).code).toBe(0);
    const old = pod('old', '[{name: c, image: x, resources: {limits: {cpu: "3"}}}]').replace(
      'namespace: lref',
      'namespace: lold',
    );
    expect((await server.kubectl(['create', '-f', '-'], { input: old })).code).toBe(0);
    expect(
      (
        await server.kubectl(['create', '-f', '-'], {
          input: LIMIT_RANGE.replace('namespace: lref', 'namespace: lold'),
        })
      ).code,
    ).toBe(0);
    expect((await server.kubectl(['label', 'pod', 'old', '-n', 'lold', 'touched=yes'])).code).toBe(0);
  });

  it("bounds a claim's storage request", async () => {
    expect(await refusal(claim('pvc', '5Gi'))).toBe(
      'Error from server (Forbidden): error when creating "STDIN": persistentvolumeclaims "pvc" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi',
    );
    expect(await refusal(claim('pvc2', '100Mi'))).toBe(
      'Error from server (Forbidden): error when creating "STDIN": persistentvolumeclaims "pvc2" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Mi',
    );
    expect((await server.kubectl(['create', '-f', '-'], { input: claim('pvc3', '1500Mi') })).code).toBe(0);
  });
});
