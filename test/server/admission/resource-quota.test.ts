/**
 * ResourceQuota through kubectl and HTTPS against a running capstan: the quota controller fills
 * `status.hard` and follows creates and deletes in `status.used`; the admission plugin refuses
 * what exceeds a quota with the messages kube-apiserver v1.34.4 gives for the same requests
 * (asked of the reference with the same quota status), writes nothing then, and lets exactly
 * one of two concurrent creates through against the last unit.
 */
import { isDeepStrictEqual } from 'node:util';
import { startServer, type TestServer } from '../../helpers/server';
import { retryUntil, waitUntil } from '../../helpers/wait-for';

interface Quota {
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

const pod = (namespace: string, name: string, resources = '') =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: { containers: [{ name: 'c', image: 'x', ...(resources ? { resources: JSON.parse(resources) } : {}) }] },
  });

describe('ResourceQuota', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function quotaStatus(namespace: string, name: string): Promise<Quota['status']> {
    const response = await server.request('GET', `/api/v1/namespaces/${namespace}/resourcequotas/${name}`);
    return response.json<Quota>().status;
  }

  /** Polls until the quota's status is `expected` (the controller works asynchronously). */
  async function statusBecomes(namespace: string, name: string, expected: Quota['status']): Promise<void> {
    expect(
      await retryUntil(
        () => quotaStatus(namespace, name),
        (status) => isDeepStrictEqual(status, expected),
        15_000,
      ),
    ).toEqual(expected);
  }

  /**
   * A namespace with the quota `hard`, once its status is filled. Every namespace gets the
   * `kube-root-ca.crt` ConfigMap from the leader's publisher, as on a real cluster: it is waited
   * for first, and counts as one ConfigMap.
   */
  async function setUp(namespace: string, hard: Record<string, string>): Promise<void> {
    expect((await server.kubectl(['create', 'namespace', namespace])).code).toBe(0);
    await waitUntil(
      'kube-root-ca.crt',
      async () =>
        (await server.request('GET', `/api/v1/namespaces/${namespace}/configmaps/kube-root-ca.crt`)).status === 200,
      15_000,
      100,
    );
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q1', namespace }, spec: { hard } };
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(quota) })).code).toBe(0);
    const zero = Object.fromEntries(Object.keys(hard).map((name) => [name, name === 'count/configmaps' ? '1' : '0']));
    await statusBecomes(namespace, 'q1', { hard, used: zero });
  }

  it('charges creates, refuses the next with the reference message, and gives back on delete', async () => {
    // kube-root-ca.crt is the first of four ConfigMaps.
    const hard = { 'count/configmaps': '4', 'limits.memory': '1Gi', pods: '1', 'requests.cpu': '1' };
    await setUp('q-basic', hard);
    const resources = '{"requests":{"cpu":"500m"},"limits":{"memory":"100Mi"}}';
    expect((await server.kubectl(['create', '-f', '-'], { input: pod('q-basic', 'p1', resources) })).code).toBe(0);
    expect((await quotaStatus('q-basic', 'q1'))?.used).toEqual({
      'count/configmaps': '1',
      'limits.memory': '100Mi',
      pods: '1',
      'requests.cpu': '500m',
    });

    const refused = await server.kubectl(['create', '-f', '-'], {
      input: pod('q-basic', 'p3', resources.replace('500m', '700m')),
    });
    expect(refused.code).not.toBe(0);
    // The reference's answer to the same request.
    expect(refused.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": pods "p3" is forbidden: exceeded quota: q1, requested: pods=1,requests.cpu=700m, used: pods=1,requests.cpu=500m, limited: pods=1,requests.cpu=1',
    );
    expect((await server.kubectl(['get', 'pod', 'p3', '-n', 'q-basic'])).code).not.toBe(0);
    expect((await quotaStatus('q-basic', 'q1'))?.used?.pods).toBe('1');

    const unstated = await server.kubectl(['create', '-f', '-'], { input: pod('q-basic', 'p4') });
    expect(unstated.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": pods "p4" is forbidden: failed quota: q1: must specify limits.memory for: c; requests.cpu for: c',
    );

    for (const name of ['c1', 'c2', 'c3'])
      expect((await server.kubectl(['create', 'configmap', name, '-n', 'q-basic'])).code).toBe(0);
    const fourth = await server.kubectl(['create', 'configmap', 'c4', '-n', 'q-basic']);
    expect(fourth.stderr.trim()).toBe(
      'error: failed to create configmap: configmaps "c4" is forbidden: exceeded quota: q1, requested: count/configmaps=1, used: count/configmaps=4, limited: count/configmaps=4',
    );

    expect((await server.kubectl(['delete', 'pod', 'p1', '-n', 'q-basic', '--wait=false'])).code).toBe(0);
    expect((await server.kubectl(['delete', 'configmap', 'c1', '-n', 'q-basic'])).code).toBe(0);
    await statusBecomes('q-basic', 'q1', {
      hard,
      used: { 'count/configmaps': '3', 'limits.memory': '0', pods: '0', 'requests.cpu': '0' },
    });
    expect((await server.kubectl(['create', '-f', '-'], { input: pod('q-basic', 'p5', resources) })).code).toBe(0);
  });

  it('sums in the reference format, and recounts when spec.hard changes', async () => {
    const hard = { 'limits.memory': '1Gi', 'requests.cpu': '2' };
    await setUp('q-sums', hard);
    const resources = '{"requests":{"cpu":"500m"},"limits":{"memory":"100Mi"}}';
    for (const name of ['a', 'b'])
      expect((await server.kubectl(['create', '-f', '-'], { input: pod('q-sums', name, resources) })).code).toBe(0);
    expect((await quotaStatus('q-sums', 'q1'))?.used).toEqual({ 'limits.memory': '200Mi', 'requests.cpu': '1' });
    expect(
      (
        await server.kubectl([
          'patch',
          'resourcequota',
          'q1',
          '-n',
          'q-sums',
          '--type=merge',
          '-p',
          '{"spec":{"hard":{"pods":"5"}}}',
        ])
      ).code,
    ).toBe(0);
    await statusBecomes('q-sums', 'q1', {
      hard: { ...hard, pods: '5' },
      used: { 'limits.memory': '200Mi', pods: '2', 'requests.cpu': '1' },
    });
  });

  it('admits exactly one of two concurrent creates against a quota of one', async () => {
    await setUp('q-race', { pods: '1' });
    const results = await Promise.all(
      ['r1', 'r2'].map((name) =>
        server.request('POST', '/api/v1/namespaces/q-race/pods', {
          body: pod('q-race', name),
          headers: { 'content-type': 'application/json' },
        }),
      ),
    );
    expect(results.map((result) => result.status).sort()).toEqual([201, 403]);
    const pods = (await server.request('GET', '/api/v1/namespaces/q-race/pods')).json<{ items: unknown[] }>();
    expect(pods.items).toHaveLength(1);
    expect((await quotaStatus('q-race', 'q1'))?.used).toEqual({ pods: '1' });
  });

  it('counts only the pods a scoped quota selects', async () => {
    expect((await server.kubectl(['create', 'namespace', 'q-scope'])).code).toBe(0);
    const quota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'be', namespace: 'q-scope' },
      spec: { hard: { pods: '1' }, scopes: ['BestEffort'] },
    };
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(quota) })).code).toBe(0);
    await statusBecomes('q-scope', 'be', { hard: { pods: '1' }, used: { pods: '0' } });
    expect((await server.kubectl(['create', '-f', '-'], { input: pod('q-scope', 'p4') })).code).toBe(0);
    const second = await server.kubectl(['create', '-f', '-'], { input: pod('q-scope', 'p5') });
    expect(second.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": pods "p5" is forbidden: exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1',
    );
    // Not best-effort: outside the scope.
    expect(
      (await server.kubectl(['create', '-f', '-'], { input: pod('q-scope', 'p1', '{"requests":{"cpu":"500m"}}') }))
        .code,
    ).toBe(0);
    expect((await quotaStatus('q-scope', 'be'))?.used).toEqual({ pods: '1' });
  });

  it('counts only the claims that name a VolumeAttributesClass a quota selects', async () => {
    expect((await server.kubectl(['create', 'namespace', 'q-vac-admission'])).code).toBe(0);
    const hard = { persistentvolumeclaims: '1', 'requests.storage': '5Gi' };
    const scopeSelector = {
      matchExpressions: [{ scopeName: 'VolumeAttributesClass', operator: 'In', values: ['gold'] }],
    };
    const quota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'vac', namespace: 'q-vac-admission' },
      spec: { hard, scopeSelector },
    };
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(quota) })).code).toBe(0);
    await statusBecomes('q-vac-admission', 'vac', {
      hard,
      used: { persistentvolumeclaims: '0', 'requests.storage': '0' },
    });
    const claim = (name: string, volumeAttributesClassName?: string) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name, namespace: 'q-vac-admission' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '1Gi' } },
          storageClassName: '',
          ...(volumeAttributesClassName ? { volumeAttributesClassName } : {}),
        },
      });
    expect((await server.kubectl(['create', '-f', '-'], { input: claim('gold-1', 'gold') })).code).toBe(0);
    // Charged at admission, as the reference charges it: the quota controller never counts creates.
    expect((await quotaStatus('q-vac-admission', 'vac'))?.used).toEqual({
      persistentvolumeclaims: '1',
      'requests.storage': '1Gi',
    });
    const second = await server.kubectl(['create', '-f', '-'], { input: claim('gold-2', 'gold') });
    // Only what is exceeded is named, as the reference names it.
    expect(second.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": persistentvolumeclaims "gold-2" is forbidden: exceeded quota: vac, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1',
    );
    // Another class, or none: outside the scope.
    expect((await server.kubectl(['create', '-f', '-'], { input: claim('silver', 'silver') })).code).toBe(0);
    expect((await server.kubectl(['create', '-f', '-'], { input: claim('plain') })).code).toBe(0);
    expect((await quotaStatus('q-vac-admission', 'vac'))?.used).toEqual({
      persistentvolumeclaims: '1',
      'requests.storage': '1Gi',
    });
  });

  it('charges a ResourceClaim its devices per DeviceClass, the most of its alternatives, at admission', async () => {
    const hard = { 'count/resourceclaims.resource.k8s.io': '2', 'gold.deviceclass.resource.k8s.io/devices': '3' };
    expect((await server.kubectl(['create', 'namespace', 'q-claims'])).code).toBe(0);
    const quota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'devices', namespace: 'q-claims' },
      spec: { hard },
    };
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(quota) })).code).toBe(0);
    await statusBecomes('q-claims', 'devices', {
      hard,
      used: { 'count/resourceclaims.resource.k8s.io': '0', 'gold.deviceclass.resource.k8s.io/devices': '0' },
    });
    const claim = (name: string, requests: object[]) =>
      JSON.stringify({
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        metadata: { name, namespace: 'q-claims' },
        spec: { devices: { requests } },
      });
    const firstAvailable = [
      { name: 'big', deviceClassName: 'gold', allocationMode: 'ExactCount', count: 2 },
      { name: 'small', deviceClassName: 'gold', allocationMode: 'ExactCount', count: 1 },
    ];
    expect(
      (await server.kubectl(['create', '-f', '-'], { input: claim('either', [{ name: 'r', firstAvailable }]) })).code,
    ).toBe(0);
    expect((await quotaStatus('q-claims', 'devices'))?.used).toEqual({
      'count/resourceclaims.resource.k8s.io': '1',
      'gold.deviceclass.resource.k8s.io/devices': '2',
    });
    const over = await server.kubectl(['create', '-f', '-'], {
      input: claim('two', [
        { name: 'r', exactly: { deviceClassName: 'gold', allocationMode: 'ExactCount', count: 2 } },
      ]),
    });
    expect(over.stderr).toContain(
      'exceeded quota: devices, requested: gold.deviceclass.resource.k8s.io/devices=2, used: gold.deviceclass.resource.k8s.io/devices=2, limited: gold.deviceclass.resource.k8s.io/devices=3',
    );
  });

  it('counts only the pods whose affinity looks across namespaces for a CrossNamespacePodAffinity quota', async () => {
    expect((await server.kubectl(['create', 'namespace', 'q-affinity-admission'])).code).toBe(0);
    const quota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'cross', namespace: 'q-affinity-admission' },
      spec: { hard: { pods: '2' }, scopes: ['CrossNamespacePodAffinity'] },
    };
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(quota) })).code).toBe(0);
    await statusBecomes('q-affinity-admission', 'cross', { hard: { pods: '2' }, used: { pods: '0' } });
    const withAffinity = (name: string, term: object) => {
      const object = JSON.parse(pod('q-affinity-admission', name));
      object.spec.affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone', ...term },
          ],
        },
      };
      return JSON.stringify(object);
    };
    expect((await server.kubectl(['create', '-f', '-'], { input: withAffinity('local', {}) })).code).toBe(0);
    expect((await quotaStatus('q-affinity-admission', 'cross'))?.used).toEqual({ pods: '0' });
    expect(
      (await server.kubectl(['create', '-f', '-'], { input: withAffinity('listed', { namespaces: ['other'] }) })).code,
    ).toBe(0);
    expect(
      (await server.kubectl(['create', '-f', '-'], { input: withAffinity('selected', { namespaceSelector: {} }) }))
        .code,
    ).toBe(0);
    expect((await quotaStatus('q-affinity-admission', 'cross'))?.used).toEqual({ pods: '2' });
  });

  it("charges a pod an update moves into a quota's scope in full there", async () => {
    expect((await server.kubectl(['create', 'namespace', 'q-term'])).code).toBe(0);
    const quota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'term', namespace: 'q-term' },
      spec: { hard: { pods: '1' }, scopes: ['Terminating'] },
    };
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(quota) })).code).toBe(0);
    await statusBecomes('q-term', 'term', { hard: { pods: '1' }, used: { pods: '0' } });
    const terminating = JSON.parse(pod('q-term', 't1'));
    terminating.spec.activeDeadlineSeconds = 3600;
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(terminating) })).code).toBe(0);
    // Outside the scope until it gains a deadline; then it is a second terminating pod.
    expect((await server.kubectl(['create', '-f', '-'], { input: pod('q-term', 'p2') })).code).toBe(0);
    const moved = await server.kubectl([
      'patch',
      'pod',
      'p2',
      '-n',
      'q-term',
      '--type=merge',
      '-p',
      '{"spec":{"activeDeadlineSeconds":3600}}',
    ]);
    // The reference's answer to the same request.
    expect(moved.stderr.trim()).toBe(
      'Error from server (Forbidden): pods "p2" is forbidden: exceeded quota: term, requested: pods=1, used: pods=1, limited: pods=1',
    );
    expect((await quotaStatus('q-term', 'term'))?.used).toEqual({ pods: '1' });
  });

  it('refuses a pod that leaves unstated the compute a quota tracks, though it tracks no pod count', async () => {
    await setUp('q-compute', { 'requests.cpu': '1' });
    const refused = await server.kubectl(['create', '-f', '-'], { input: pod('q-compute', 'bare') });
    expect(refused.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": pods "bare" is forbidden: failed quota: q1: must specify requests.cpu for: c',
    );
  });

  it('charges nothing for a dry run', async () => {
    await setUp('q-dry', { pods: '1' });
    expect((await server.kubectl(['create', '-f', '-', '--dry-run=server'], { input: pod('q-dry', 'd') })).code).toBe(
      0,
    );
    expect((await quotaStatus('q-dry', 'q1'))?.used).toEqual({ pods: '0' });
  });

  /** A quota of `spec` in a new namespace, once the controller has counted it as `used`. */
  async function quotaIn(
    namespace: string,
    name: string,
    spec: Record<string, unknown>,
    used: Record<string, string>,
  ): Promise<void> {
    if ((await server.request('GET', `/api/v1/namespaces/${namespace}`)).status === 404)
      expect((await server.kubectl(['create', 'namespace', namespace])).code).toBe(0);
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace }, spec };
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(quota) })).code).toBe(0);
    await statusBecomes(namespace, name, { hard: spec.hard as Record<string, string>, used });
  }

  const claim = (namespace: string, name: string, spec: Record<string, unknown>) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
    });

  it('counts claims by storage class and by VolumeAttributesClass, and gives back at once when a claim leaves a class', async () => {
    const byClass = {
      hard: {
        'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '5',
        'gold.storageclass.storage.k8s.io/requests.storage': '10Gi',
      },
    };
    await quotaIn('q-vac', 'by-class', byClass, {
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '0',
      'gold.storageclass.storage.k8s.io/requests.storage': '0',
    });
    const scoped = {
      hard: { persistentvolumeclaims: '1', 'requests.storage': '5Gi' },
      scopeSelector: { matchExpressions: [{ scopeName: 'VolumeAttributesClass', operator: 'In', values: ['gold'] }] },
    };
    await quotaIn('q-vac', 'vac', scoped, { persistentvolumeclaims: '0', 'requests.storage': '0' });

    expect(
      (await server.kubectl(['create', '-f', '-'], { input: claim('q-vac', 'sc', { storageClassName: 'gold' }) })).code,
    ).toBe(0);
    expect((await quotaStatus('q-vac', 'by-class'))?.used).toEqual({
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'gold.storageclass.storage.k8s.io/requests.storage': '1Gi',
    });
    expect((await quotaStatus('q-vac', 'vac'))?.used).toEqual({ persistentvolumeclaims: '0', 'requests.storage': '0' });

    expect(
      (
        await server.kubectl(['create', '-f', '-'], {
          input: claim('q-vac', 'g1', { storageClassName: '', volumeAttributesClassName: 'gold' }),
        })
      ).code,
    ).toBe(0);
    expect((await quotaStatus('q-vac', 'vac'))?.used).toEqual({
      persistentvolumeclaims: '1',
      'requests.storage': '1Gi',
    });
    const refused = await server.kubectl(['create', '-f', '-'], {
      input: claim('q-vac', 'g2', { storageClassName: '', volumeAttributesClassName: 'gold' }),
    });
    // The reference's answer to the same request.
    expect(refused.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": persistentvolumeclaims "g2" is forbidden: exceeded quota: vac, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1',
    );
    expect(
      (
        await server.kubectl(['create', '-f', '-'], {
          input: claim('q-vac', 's1', { storageClassName: '', volumeAttributesClassName: 'silver' }),
        })
      ).code,
    ).toBe(0);

    // A bound claim (as the volume binder leaves it) asked to change class holds the old one until the volume has changed.
    expect(
      (
        await server.kubectl([
          'patch',
          'pvc',
          'g1',
          '-n',
          'q-vac',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"phase":"Bound"}}',
        ])
      ).code,
    ).toBe(0);
    expect(
      (
        await server.kubectl([
          'patch',
          'pvc',
          'g1',
          '-n',
          'q-vac',
          '--type=merge',
          '-p',
          '{"spec":{"volumeAttributesClassName":"silver"}}',
        ])
      ).code,
    ).toBe(0);
    expect(
      (
        await server.kubectl([
          'patch',
          'pvc',
          'g1',
          '-n',
          'q-vac',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"currentVolumeAttributesClassName":"gold"}}',
        ])
      ).code,
    ).toBe(0);
    expect((await quotaStatus('q-vac', 'vac'))?.used).toEqual({
      persistentvolumeclaims: '1',
      'requests.storage': '1Gi',
    });
    // The volume changed: recounted on the event, not at the next resync (5 minutes).
    expect(
      (
        await server.kubectl([
          'patch',
          'pvc',
          'g1',
          '-n',
          'q-vac',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"currentVolumeAttributesClassName":"silver"}}',
        ])
      ).code,
    ).toBe(0);
    await statusBecomes('q-vac', 'vac', {
      hard: scoped.hard,
      used: { persistentvolumeclaims: '0', 'requests.storage': '0' },
    });
    // A status update is charged even past the limit (the reference refuses none): s1 and g1 both become gold.
    expect(
      (
        await server.kubectl([
          'patch',
          'pvc',
          's1',
          '-n',
          'q-vac',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"currentVolumeAttributesClassName":"gold"}}',
        ])
      ).code,
    ).toBe(0);
    expect(
      (
        await server.kubectl([
          'patch',
          'pvc',
          'g1',
          '-n',
          'q-vac',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"currentVolumeAttributesClassName":"gold"}}',
        ])
      ).code,
    ).toBe(0);
    expect((await quotaStatus('q-vac', 'vac'))?.used).toEqual({
      persistentvolumeclaims: '2',
      'requests.storage': '2Gi',
    });
  });

  it('counts ResourceClaims and their devices by DeviceClass, and gives back at once on delete', async () => {
    const hard = { 'count/resourceclaims.resource.k8s.io': '5', 'gold.deviceclass.resource.k8s.io/devices': '3' };
    await quotaIn(
      'q-dra',
      'dra',
      { hard },
      { 'count/resourceclaims.resource.k8s.io': '0', 'gold.deviceclass.resource.k8s.io/devices': '0' },
    );
    const resourceClaim = (name: string, requests: unknown[]) =>
      JSON.stringify({
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        metadata: { name, namespace: 'q-dra' },
        spec: { devices: { requests } },
      });
    // Two gold devices, and one more from the first alternative (the most any gold alternative asks).
    const requests = [
      { name: 'a', exactly: { deviceClassName: 'gold', count: 2 } },
      {
        name: 'b',
        firstAvailable: [
          { name: 'x', deviceClassName: 'gold' },
          { name: 'y', deviceClassName: 'silver', allocationMode: 'All' },
        ],
      },
    ];
    expect((await server.kubectl(['create', '-f', '-'], { input: resourceClaim('c1', requests) })).code).toBe(0);
    expect((await quotaStatus('q-dra', 'dra'))?.used).toEqual({
      'count/resourceclaims.resource.k8s.io': '1',
      'gold.deviceclass.resource.k8s.io/devices': '3',
    });
    const all = await server.kubectl(['create', '-f', '-'], {
      input: resourceClaim('c2', [{ name: 'a', exactly: { deviceClassName: 'gold', allocationMode: 'All' } }]),
    });
    // The reference's answer to the same request: all devices count as the most one claim can hold.
    expect(all.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": resourceclaims.resource.k8s.io "c2" is forbidden: exceeded quota: dra, requested: gold.deviceclass.resource.k8s.io/devices=32, used: gold.deviceclass.resource.k8s.io/devices=3, limited: gold.deviceclass.resource.k8s.io/devices=3',
    );
    expect((await server.kubectl(['delete', 'resourceclaim', 'c1', '-n', 'q-dra'])).code).toBe(0);
    await statusBecomes('q-dra', 'dra', {
      hard,
      used: { 'count/resourceclaims.resource.k8s.io': '0', 'gold.deviceclass.resource.k8s.io/devices': '0' },
    });
  });

  it('counts custom resources, and gives back at once on delete', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.quota.example.com' },
      spec: {
        group: 'quota.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(crd) })).code).toBe(0);
    expect(
      (await server.kubectl(['wait', '--for=condition=Established', 'crd/widgets.quota.example.com', '--timeout=30s']))
        .code,
    ).toBe(0);
    const hard = { 'count/widgets.quota.example.com': '1' };
    await quotaIn('q-cr', 'cr', { hard }, { 'count/widgets.quota.example.com': '0' });
    const widget = (name: string) =>
      JSON.stringify({ apiVersion: 'quota.example.com/v1', kind: 'Widget', metadata: { name, namespace: 'q-cr' } });
    expect((await server.kubectl(['create', '-f', '-'], { input: widget('w1') })).code).toBe(0);
    const second = await server.kubectl(['create', '-f', '-'], { input: widget('w2') });
    expect(second.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": widgets.quota.example.com "w2" is forbidden: exceeded quota: cr, requested: count/widgets.quota.example.com=1, used: count/widgets.quota.example.com=1, limited: count/widgets.quota.example.com=1',
    );
    expect((await server.kubectl(['delete', 'widget', 'w1', '-n', 'q-cr'])).code).toBe(0);
    await statusBecomes('q-cr', 'cr', { hard, used: { 'count/widgets.quota.example.com': '0' } });
  });

  it('counts the pods whose affinity looks at other namespaces in a CrossNamespacePodAffinity quota', async () => {
    const spec = {
      hard: { pods: '5' },
      scopeSelector: { matchExpressions: [{ scopeName: 'CrossNamespacePodAffinity', operator: 'Exists' }] },
    };
    await quotaIn('q-affinity', 'cross', spec, { pods: '0' });
    const withTerm = (name: string, term: Record<string, unknown>) => {
      const object = JSON.parse(pod('q-affinity', name));
      object.spec.affinity = {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, podAffinityTerm: { topologyKey: 'region', ...term } },
          ],
        },
      };
      return JSON.stringify(object);
    };
    expect((await server.kubectl(['create', '-f', '-'], { input: withTerm('local', {}) })).code).toBe(0);
    expect(
      (await server.kubectl(['create', '-f', '-'], { input: withTerm('named', { namespaces: ['other'] }) })).code,
    ).toBe(0);
    expect(
      (await server.kubectl(['create', '-f', '-'], { input: withTerm('selected', { namespaceSelector: {} }) })).code,
    ).toBe(0);
    expect((await quotaStatus('q-affinity', 'cross'))?.used).toEqual({ pods: '2' });
  });

  it('recounts at once the quota a pod leaves by gaining a deadline', async () => {
    const hard = { pods: '5' };
    await quotaIn(
      'q-leave',
      'long',
      { hard, scopeSelector: { matchExpressions: [{ scopeName: 'NotTerminating', operator: 'Exists' }] } },
      { pods: '0' },
    );
    expect((await server.kubectl(['create', '-f', '-'], { input: pod('q-leave', 'p') })).code).toBe(0);
    expect((await quotaStatus('q-leave', 'long'))?.used).toEqual({ pods: '1' });
    expect(
      (
        await server.kubectl([
          'patch',
          'pod',
          'p',
          '-n',
          'q-leave',
          '--type=merge',
          '-p',
          '{"spec":{"activeDeadlineSeconds":3600}}',
        ])
      ).code,
    ).toBe(0);
    await statusBecomes('q-leave', 'long', { hard, used: { pods: '0' } });
  });

  it('puts back at once a status.hard someone else wrote, keeping status.used as counted', async () => {
    const hard = { pods: '2' };
    await setUp('q-reset', hard);
    expect((await server.kubectl(['create', '-f', '-'], { input: pod('q-reset', 'p') })).code).toBe(0);
    const patched = await server.kubectl([
      'patch',
      'resourcequota',
      'q1',
      '-n',
      'q-reset',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"hard":{"pods":"7"}}}',
    ]);
    expect(patched.code).toBe(0);
    // The reference's controller waits for its resync (5 minutes) to do the same.
    await statusBecomes('q-reset', 'q1', { hard, used: { pods: '1' } });
  });
});
