/**
 * The built-in admission plugins on by default, through kubectl as a user meets them, with the
 * objects and messages kube-apiserver v1.34.4 gives for the same requests; and the flags that
 * choose plugins, with the reference's start-up error for a name it does not know.
 */
import { spawnSync } from 'node:child_process';
import { ensureBuilt, MAIN } from '../../helpers/capstan-process';
import { startServer, type TestServer } from '../../helpers/server';
import { selectAdmissionPlugins } from '../../../server/admission/plugins';
import { admissionAttributes } from '../../helpers/admission-attributes';
import { serviceResolver } from '../../../server/proxy/service-endpoint';

interface PodSpecFields {
  priority?: number;
  priorityClassName?: string;
  preemptionPolicy?: string;
  tolerations?: object[];
  overhead?: object;
  nodeSelector?: object;
}

const pod = (name: string, spec: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default}\nspec: {${spec}containers: [{name: c, image: nginx}]}\n`;
const DEFAULT_TOLERATIONS = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

describe('built-in admission plugins', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function create(
    yaml: string,
  ): Promise<{ code: number; object?: { spec: PodSpecFields; metadata: { finalizers?: string[] } }; stderr: string }> {
    const result = await server.kubectl(['create', '-f', '-', '-o', 'json'], { input: yaml });
    return {
      code: result.code,
      object: result.code === 0 ? JSON.parse(result.stdout) : undefined,
      stderr: result.stderr.trim(),
    };
  }

  it('Priority and DefaultTolerationSeconds fill a new pod as the reference does', async () => {
    const plain = await create(pod('plain', ''));
    expect(plain.object?.spec).toMatchObject({
      priority: 0,
      preemptionPolicy: 'PreemptLowerPriority',
      tolerations: DEFAULT_TOLERATIONS,
    });
    expect(plain.object?.spec.priorityClassName).toBeUndefined();

    const critical = await create(
      pod(
        'critical',
        'priorityClassName: system-node-critical, tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 10}], ',
      ),
    );
    expect(critical.object?.spec).toMatchObject({
      priority: 2000001000,
      priorityClassName: 'system-node-critical',
      preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
        DEFAULT_TOLERATIONS[1],
      ],
    });
  });

  it('Priority refuses an unknown class and a stated priority with the reference messages', async () => {
    expect(await create(pod('unknown-class', 'priorityClassName: nope, '))).toMatchObject({
      code: 1,
      stderr:
        'Error from server (Forbidden): error when creating "STDIN": pods "unknown-class" is forbidden: no PriorityClass with name nope was found',
    });
    // Refused before the name is generated: named by its prefix, as the reference's admission errors name it.
    const generated = pod('unused', 'priorityClassName: nope, ').replace('name: unused', 'generateName: gen-');
    expect(await create(generated)).toMatchObject({
      code: 1,
      stderr:
        'Error from server (Forbidden): error when creating "STDIN": pods "gen-" is forbidden: no PriorityClass with name nope was found',
    });
    expect(await create(pod('stated', 'priority: 5, '))).toMatchObject({
      code: 1,
      stderr:
        'Error from server (Forbidden): error when creating "STDIN": pods "stated" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    });
  });

  it('TaintNodesByCondition, StorageObjectInUseProtection and DefaultStorageClass', async () => {
    const node = await server.kubectl(['create', '-f', '-', '-o', 'json'], {
      input: 'apiVersion: v1\nkind: Node\nmetadata: {name: n9}\n',
    });
    expect(JSON.parse(node.stdout).spec).toEqual({
      taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }],
    });

    const storageClass =
      'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: std, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}\nprovisioner: x.example.com\n';
    expect((await server.kubectl(['create', '-f', '-'], { input: storageClass })).code).toBe(0);
    const claim = await server.kubectl(['create', '-f', '-', '-o', 'json'], {
      input:
        'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c1, namespace: default}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n',
    });
    const created = JSON.parse(claim.stdout);
    expect({ storageClassName: created.spec.storageClassName, finalizers: created.metadata.finalizers }).toEqual({
      storageClassName: 'std',
      finalizers: ['kubernetes.io/pvc-protection'],
    });
    const volume = await server.kubectl(['create', '-f', '-', '-o', 'json'], {
      input:
        'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv9}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp}}\n',
    });
    expect(JSON.parse(volume.stdout).metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
  });

  it('RuntimeClass takes overhead and scheduling from the class, and refuses as the reference does', async () => {
    const runtimeClass =
      'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: rco}\nhandler: runc\noverhead: {podFixed: {cpu: 100m}}\nscheduling: {nodeSelector: {a: b}, tolerations: [{key: k, operator: Exists}]}\n';
    expect((await server.kubectl(['create', '-f', '-'], { input: runtimeClass })).code).toBe(0);
    const merged = await create(
      pod('r3', 'runtimeClassName: rco, nodeSelector: {z: w}, tolerations: [{key: k, operator: Exists}], '),
    );
    expect(merged.object?.spec).toMatchObject({
      overhead: { cpu: '100m' },
      nodeSelector: { a: 'b', z: 'w' },
      tolerations: [{ key: 'k', operator: 'Exists' }, ...DEFAULT_TOLERATIONS],
    });
    const refusals: Array<[string, string]> = [
      [pod('r1', 'runtimeClassName: nope, '), 'pods "r1" is forbidden: pod rejected: RuntimeClass "nope" not found'],
      [
        pod('r2', 'overhead: {cpu: "1"}, '),
        'pods "r2" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
      ],
      [
        pod('r4', 'runtimeClassName: rco, nodeSelector: {a: c}, '),
        'pods "r4" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[a] = b; pod.spec.nodeSelector[a] = c',
      ],
      [
        pod('r5', 'runtimeClassName: rco, overhead: {cpu: "1"}, '),
        `pods "r5" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
      ],
    ];
    for (const [yaml, message] of refusals) {
      expect(await create(yaml)).toMatchObject({
        code: 1,
        stderr: `Error from server (Forbidden): error when creating "STDIN": ${message}`,
      });
    }
  });
});

describe('choosing admission plugins', () => {
  beforeAll(() => ensureBuilt());

  it('refuses a plugin name the reference does not know, and one capstan cannot run yet', () => {
    const unknown = spawnSync(
      process.execPath,
      [MAIN, '--secure-port', '0', '--data-dir', '/tmp/capstan-never', '--enable-admission-plugins', 'Foo'],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trimEnd().split('\n').pop()).toBe(
      'capstan: enable-admission-plugins plugin "Foo" is unknown',
    );
  });

  it('AlwaysDeny refuses every write with the reference message', async () => {
    const { plugins } = selectAdmissionPlugins(
      { enable: ['AlwaysDeny'], disable: ['NamespaceLifecycle'] },
      {
        storageOf: () => {
          throw new Error('not asked');
        },
        services: serviceResolver(() => {
          throw new Error('not asked');
        }, true),
        tolerationSeconds: { notReady: 300, unreachable: 300 },
        authorizer: {
          authorize: () => {
            throw new Error('not asked');
          },
        },
        featureEnabled: () => false,
        pluginConfigurations: () => undefined,
        paramKinds: () => undefined,
        servedType: () => undefined,
        createNamespace: () => Promise.reject(new Error('not asked')),
        servedKind: () => undefined,
      },
    );
    const deny = plugins[plugins.length - 1];
    expect(deny.name).toBe('AlwaysDeny');
    await expect(
      deny.validate!(
        admissionAttributes({
          resource: { group: '', version: 'v1', resource: 'configmaps' },
          kind: 'ConfigMap',
          operation: 'CREATE',
          name: 'x',
          namespace: 'default',
          userInfo: { name: 'someone', groups: [] },
        }),
      ),
    ).rejects.toMatchObject({
      status: {
        code: 403,
        reason: 'Forbidden',
        message: 'configmaps "x" is forbidden: admission control is denying all modifications',
      },
    });
  });

  it('disabling a default plugin turns it off', async () => {
    const plain = await startServer({ flags: ['--disable-admission-plugins=DefaultTolerationSeconds,Priority'] });
    try {
      const created = await plain.kubectl(['create', '-f', '-', '-o', 'json'], { input: pod('bare', '') });
      const spec = JSON.parse(created.stdout).spec as PodSpecFields;
      expect([spec.tolerations, spec.priority, spec.preemptionPolicy]).toEqual([undefined, undefined, undefined]);
    } finally {
      await plain.stop();
    }
  });
});
