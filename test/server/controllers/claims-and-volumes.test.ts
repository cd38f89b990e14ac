/**
 * The controller manager's claim and volume controllers capstan runs, through kubectl against a
 * running capstan: protection (a claim or volume being deleted keeps its protection finalizer
 * while in use and goes once not), and the binding of a claim and a volume that name each other
 * (both Bound with the reference's fields; the volume Released once the claim is gone).
 */
import { startServer, type TestServer } from '../../helpers/server';
import { retryUntil } from '../../helpers/wait-for';

type Json = Record<string, any>;

describe('claims and volumes', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function get(path: string): Promise<Json | undefined> {
    const response = await server.request('GET', path);
    return response.status === 200 ? response.json<Json>() : undefined;
  }

  /** Polls `path` until `done` holds of it (or of its absence), for up to 15 s. */
  async function until(path: string, done: (object: Json | undefined) => boolean): Promise<Json | undefined> {
    return retryUntil(() => get(path), done, 15_000);
  }

  async function create(object: Json): Promise<void> {
    const result = await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(object) });
    expect(result.stderr).toBe('');
  }

  const claim = (namespace: string, name: string, spec: Json = {}) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace },
    spec: {
      storageClassName: '',
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
      ...spec,
    },
  });

  it('deletes a claim once no scheduled pod uses it, and a volume once it is not Bound', async () => {
    expect((await server.kubectl(['create', 'namespace', 'protect'])).code).toBe(0);
    await create(claim('protect', 'used'));
    await create(claim('protect', 'unused'));
    await create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'user', namespace: 'protect' },
      spec: {
        nodeName: 'n1',
        containers: [{ name: 'c', image: 'x' }],
        volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'used' } }],
      },
    });
    expect((await server.kubectl(['delete', 'pvc', 'used', 'unused', '-n', 'protect', '--wait=false'])).code).toBe(0);
    expect(
      await until('/api/v1/namespaces/protect/persistentvolumeclaims/unused', (object) => object === undefined),
    ).toBeUndefined();
    const used = await get('/api/v1/namespaces/protect/persistentvolumeclaims/used');
    expect(used?.metadata).toMatchObject({
      finalizers: ['kubernetes.io/pvc-protection'],
      deletionTimestamp: expect.any(String),
    });
    expect((await server.kubectl(['delete', 'pod', 'user', '-n', 'protect', '--grace-period=0', '--force'])).code).toBe(
      0,
    );
    expect(
      await until('/api/v1/namespaces/protect/persistentvolumeclaims/used', (object) => object === undefined),
    ).toBeUndefined();

    const volume = (name: string) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } },
    });
    await create(volume('protected'));
    await create(volume('free'));
    expect(
      (
        await server.kubectl([
          'patch',
          'pv',
          'protected',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"phase":"Bound"}}',
        ])
      ).code,
    ).toBe(0);
    expect((await server.kubectl(['delete', 'pv', 'protected', 'free', '--wait=false'])).code).toBe(0);
    // The controller has seen the deletions once the free volume is gone; the bound one it holds.
    expect(await until('/api/v1/persistentvolumes/free', (object) => object === undefined)).toBeUndefined();
    expect((await get('/api/v1/persistentvolumes/protected'))?.metadata.finalizers).toEqual([
      'kubernetes.io/pv-protection',
    ]);
    expect(
      (
        await server.kubectl([
          'patch',
          'pv',
          'protected',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"phase":"Available"}}',
        ])
      ).code,
    ).toBe(0);
    expect(await until('/api/v1/persistentvolumes/protected', (object) => object === undefined)).toBeUndefined();
  });

  const vac = (name: string) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttributesClass',
    metadata: { name },
    driverName: 'csi.example.com',
    parameters: { iops: '100' },
  });

  it('deletes a volume attributes class once no claim or volume names it', async () => {
    await create(vac('named-by-claim'));
    await create(vac('named-by-volume'));
    await create(vac('unnamed'));
    // The admission plugin protects every new class.
    expect((await get('/apis/storage.k8s.io/v1/volumeattributesclasses/unnamed'))?.metadata.finalizers).toEqual([
      'kubernetes.io/vac-protection',
    ]);
    expect((await server.kubectl(['create', 'namespace', 'vac'])).code).toBe(0);
    await create(claim('vac', 'fast', { volumeAttributesClassName: 'named-by-claim' }));
    await create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'vac-volume' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        csi: { driver: 'csi.example.com', volumeHandle: 'h' },
        volumeAttributesClassName: 'named-by-volume',
      },
    });
    const classes = ['named-by-claim', 'named-by-volume', 'unnamed'];
    expect((await server.kubectl(['delete', 'volumeattributesclass', ...classes, '--wait=false'])).code).toBe(0);
    const path = (name: string) => `/apis/storage.k8s.io/v1/volumeattributesclasses/${name}`;
    expect(await until(path('unnamed'), (object) => object === undefined)).toBeUndefined();
    for (const name of ['named-by-claim', 'named-by-volume'])
      expect((await get(path(name)))?.metadata).toMatchObject({
        finalizers: ['kubernetes.io/vac-protection'],
        deletionTimestamp: expect.any(String),
      });
    expect((await server.kubectl(['delete', 'pvc', 'fast', '-n', 'vac', '--wait=false'])).code).toBe(0);
    expect(await until(path('named-by-claim'), (object) => object === undefined)).toBeUndefined();
    expect((await server.kubectl(['delete', 'pv', 'vac-volume', '--wait=false'])).code).toBe(0);
    expect(await until(path('named-by-volume'), (object) => object === undefined)).toBeUndefined();
  });

  it('protects a class made without the finalizer, as the controller manager does', async () => {
    const json = { 'Content-Type': 'application/json' };
    const path = '/apis/storage.k8s.io/v1/volumeattributesclasses';
    expect((await server.request('POST', path, { body: JSON.stringify(vac('later')), headers: json })).status).toBe(
      201,
    );
    const removed = await server.request('PATCH', `${path}/later`, {
      body: JSON.stringify([{ op: 'remove', path: '/metadata/finalizers' }]),
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(removed.status).toBe(200);
    expect(
      (
        await until('/apis/storage.k8s.io/v1/volumeattributesclasses/later', (object) =>
          (object?.metadata.finalizers ?? []).includes('kubernetes.io/vac-protection'),
        )
      )?.metadata.finalizers,
    ).toEqual(['kubernetes.io/vac-protection']);
  });

  it('binds a claim and a volume that name each other, and releases the volume when the claim goes', async () => {
    expect((await server.kubectl(['create', 'namespace', 'bind'])).code).toBe(0);
    await create(claim('bind', 'c1', { volumeName: 'v1', volumeAttributesClassName: 'gold' }));
    // A volume that names another claim is not bound to this one.
    await create(claim('bind', 'c2', { volumeName: 'v2' }));
    const volume = (name: string, claimName: string) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: {
        storageClassName: '',
        volumeAttributesClassName: 'gold',
        persistentVolumeReclaimPolicy: 'Delete',
        accessModes: ['ReadWriteOnce'],
        capacity: { storage: '2Gi' },
        csi: { driver: 'fake.csi.k8s.io', volumeHandle: name },
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'bind', name: claimName },
      },
    });
    await create(volume('v1', 'c1'));
    await create(volume('v2', 'other'));

    const bound = await until(
      '/api/v1/namespaces/bind/persistentvolumeclaims/c1',
      (object) => object?.status?.phase === 'Bound',
    );
    expect(bound?.status).toEqual({
      phase: 'Bound',
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '2Gi' },
      currentVolumeAttributesClassName: 'gold',
    });
    expect(bound?.metadata.annotations).toEqual({ 'pv.kubernetes.io/bind-completed': 'yes' });
    const v1 = await until('/api/v1/persistentvolumes/v1', (object) => object?.status?.phase === 'Bound');
    expect(v1?.status.phase).toBe('Bound');
    expect(v1?.spec.claimRef).toMatchObject({ namespace: 'bind', name: 'c1', uid: bound?.metadata.uid });
    expect((await get('/api/v1/namespaces/bind/persistentvolumeclaims/c2'))?.status.phase).toBe('Pending');

    expect((await server.kubectl(['delete', 'pvc', 'c1', '-n', 'bind'])).code).toBe(0);
    expect(
      (await until('/api/v1/persistentvolumes/v1', (object) => object?.status?.phase !== 'Bound'))?.status.phase,
    ).toBe('Released');
  });
});
