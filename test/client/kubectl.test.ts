/**
 * The real kubectl 1.33 against the compiled server, as a user drives it: the checklist of
 * issue 3 ("What it must show"), once on the embedded SQLite store and once on a real etcd.
 * One server per backend for the file; every test works in its own namespace, so tests do not
 * depend on each other or on their order.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { KUBECTL, kubectlConnection, startServer, type KubectlResult, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait-for';

const FIXTURES = join(__dirname, 'fixtures');
const fixture = (name: string) => join(FIXTURES, name);
const WAIT_MS = 15_000;
const POLL_MS = 100;

interface Backend {
  readonly name: string;
  start(): Promise<{ server: TestServer; etcd?: EtcdServer }>;
}

const BACKENDS: Backend[] = [
  { name: 'SQLite', start: async () => ({ server: await startServer() }) },
  {
    name: 'etcd',
    start: async () => {
      const etcd = await startEtcd();
      try {
        const server = await startServer({
          etcdServers: etcd.endpoints,
          etcdPrefix: `/kubectl-${randomBytes(4).toString('hex')}`,
        });
        return { server, etcd };
      } catch (error) {
        await etcd.stop();
        throw error;
      }
    },
  },
];

function expectSuccess(result: KubectlResult): string {
  if (result.code !== 0) throw new Error(`kubectl failed (${result.code}):\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

describe.each(BACKENDS)('kubectl 1.33 on $name', (backend) => {
  let server: TestServer;
  let etcd: EtcdServer | undefined;
  let namespaces = 0;

  beforeAll(async () => {
    ({ server, etcd } = await backend.start());
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  const kubectl = (...args: string[]) => server.kubectl(args);
  const ok = async (...args: string[]) => expectSuccess(await server.kubectl(args));
  const json = async <T>(...args: string[]) => JSON.parse(await ok(...args, '-o', 'json')) as T;

  /** A fresh namespace for one test, made with `kubectl create namespace`. */
  async function freshNamespace(): Promise<string> {
    const name = `t${++namespaces}-${randomBytes(3).toString('hex')}`;
    expect(await ok('create', 'namespace', name)).toBe(`namespace/${name} created\n`);
    return name;
  }

  async function createFixtures(namespace: string, ...names: string[]): Promise<void> {
    for (const name of names) await ok('-n', namespace, 'create', '-f', fixture(name));
  }

  test('create namespace, then create -f a Deployment, ConfigMap, Secret and Service from YAML', async () => {
    const ns = await freshNamespace();
    const created = [];
    for (const name of ['deployment.yaml', 'configmap.yaml', 'secret.yaml', 'service.yaml']) {
      created.push(await ok('-n', ns, 'create', '-f', fixture(name)));
    }
    expect(created).toEqual([
      'deployment.apps/web created\n',
      'configmap/settings created\n',
      'secret/credentials created\n',
      'service/web created\n',
    ]);

    const table = await ok('-n', ns, 'get', 'deployments,configmaps,secrets,services');
    expect(table).toMatch(/deployment\.apps\/web\s+0\/2\s+0\s+0\s+/);
    expect(table).toMatch(/configmap\/settings\s+2\s+/);
    // stringData is folded into data on write.
    expect(table).toMatch(/secret\/credentials\s+Opaque\s+2\s+/);
    expect(table).toMatch(/service\/web\s+ClusterIP\s+\d+\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+/);
  });

  test('get -o yaml and -o json show the stored objects with defaults and metadata', async () => {
    const ns = await freshNamespace();
    await createFixtures(ns, 'deployment.yaml', 'secret.yaml');

    const yaml = await ok('-n', ns, 'get', 'deployment', 'web', '-o', 'yaml');
    expect(yaml).toMatch(/^apiVersion: apps\/v1\nkind: Deployment\nmetadata:\n/);
    expect(yaml).toContain('  generation: 1\n');
    expect(yaml).toContain('    type: RollingUpdate\n');
    expect(yaml).toMatch(/ {2}uid: [0-9a-f-]{36}\n/);

    const deployment = await json<{
      metadata: { namespace: string; resourceVersion: string; labels: Record<string, string> };
      spec: { replicas: number; revisionHistoryLimit: number };
    }>('-n', ns, 'get', 'deployment', 'web');
    expect(deployment.metadata.namespace).toBe(ns);
    expect(deployment.metadata.labels).toEqual({ app: 'web', tier: 'frontend' });
    expect(Number(deployment.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(deployment.spec).toMatchObject({ replicas: 2, revisionHistoryLimit: 10 });

    const secret = await json<{ data: Record<string, string>; stringData?: unknown }>(
      '-n',
      ns,
      'get',
      'secret',
      'credentials',
    );
    expect(secret.stringData).toBeUndefined();
    expect(Buffer.from(secret.data.password, 'base64').toString()).toBe('s3cr3t');
  });

  test('get with -l, --field-selector and -A', async () => {
    const ns = await freshNamespace();
    await createFixtures(ns, 'configmap.yaml');
    await ok('-n', ns, 'create', 'configmap', 'other', '--from-literal=a=b');

    expect(await ok('-n', ns, 'get', 'configmaps', '-l', 'app=web', '-o', 'name')).toBe('configmap/settings\n');
    // Every namespace also gets the published kube-root-ca.crt, at a moment of its own.
    expect(
      await ok(
        '-n',
        ns,
        'get',
        'configmaps',
        '-l',
        'app notin (web)',
        '--field-selector',
        'metadata.name!=kube-root-ca.crt',
        '-o',
        'name',
      ),
    ).toBe('configmap/other\n');
    expect(await ok('-n', ns, 'get', 'configmaps', '--field-selector', 'metadata.name=other', '-o', 'name')).toBe(
      'configmap/other\n',
    );
    expect(
      await ok(
        '-n',
        ns,
        'get',
        'configmaps',
        '--field-selector',
        'metadata.name!=other,metadata.name!=kube-root-ca.crt',
        '-o',
        'name',
      ),
    ).toBe('configmap/settings\n');

    const unsupported = await kubectl('-n', ns, 'get', 'configmaps', '--field-selector', 'data.a=b');
    expect(unsupported.code).toBe(1);
    expect(unsupported.stderr).toContain(
      'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "data.a=b": "data.a" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );

    const all = await ok('get', 'configmaps', '-A', '-l', 'app=web');
    expect(all).toMatch(/^NAMESPACE\s+NAME\s+DATA\s+AGE\n/);
    expect(all).toMatch(new RegExp(`\\n${ns}\\s+settings\\s+2\\s+`));
  });

  test('get -w sees a change arrive', async () => {
    const ns = await freshNamespace();
    await ok('-n', ns, 'create', 'configmap', 'before', '--from-literal=a=1');
    const watcher = spawn(
      KUBECTL,
      [
        ...kubectlConnection(server.kubeconfig),
        '-n',
        ns,
        'get',
        'configmaps',
        '--watch',
        '--field-selector',
        'metadata.name!=kube-root-ca.crt',
        '-o',
        'name',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    watcher.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    watcher.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitUntil(
        'the watch lists the existing ConfigMap',
        async () => output.includes('configmap/before\n'),
        WAIT_MS,
        POLL_MS,
      );
      await ok('-n', ns, 'create', 'configmap', 'after', '--from-literal=a=2');
      await waitUntil(
        'the watch shows the new ConfigMap',
        async () => output.includes('configmap/after\n'),
        WAIT_MS,
        POLL_MS,
      );
      await ok('-n', ns, 'label', 'configmap', 'before', 'seen=yes');
      await waitUntil(
        'the watch shows the labelled ConfigMap again',
        async () => output.split('configmap/before\n').length === 3,
        WAIT_MS,
        POLL_MS,
      );
    } finally {
      watcher.kill();
    }
    expect(output).toBe('configmap/before\nconfigmap/after\nconfigmap/before\n');
  });

  test('label and annotate', async () => {
    const ns = await freshNamespace();
    await createFixtures(ns, 'configmap.yaml');
    expect(await ok('-n', ns, 'label', 'configmap', 'settings', 'color=blue')).toBe('configmap/settings labeled\n');
    expect(await ok('-n', ns, 'annotate', 'configmap', 'settings', 'note=hello')).toBe(
      'configmap/settings annotated\n',
    );
    expect(await ok('-n', ns, 'label', 'configmap', 'settings', 'app-')).toBe('configmap/settings unlabeled\n');
    const overwrite = await kubectl('-n', ns, 'label', 'configmap', 'settings', 'color=red');
    expect(overwrite.code).toBe(1);
    expect(overwrite.stderr).toContain("'color' already has a value (blue), and --overwrite is false");

    const configMap = await json<{ metadata: { labels: Record<string, string>; annotations: Record<string, string> } }>(
      '-n',
      ns,
      'get',
      'configmap',
      'settings',
    );
    expect(configMap.metadata.labels).toEqual({ color: 'blue' });
    expect(configMap.metadata.annotations).toEqual({ note: 'hello' });
  });

  test('patch --type=json and --type=merge', async () => {
    const ns = await freshNamespace();
    await createFixtures(ns, 'configmap.yaml');
    expect(
      await ok(
        '-n',
        ns,
        'patch',
        'configmap',
        'settings',
        '--type=json',
        '-p',
        '[{"op":"replace","path":"/data/mode","value":"dev"}]',
      ),
    ).toBe('configmap/settings patched\n');
    await ok(
      '-n',
      ns,
      'patch',
      'configmap',
      'settings',
      '--type=merge',
      '-p',
      '{"data":{"extra":"x","greeting":null}}',
    );
    const configMap = await json<{ data: Record<string, string> }>('-n', ns, 'get', 'configmap', 'settings');
    expect(configMap.data).toEqual({ mode: 'dev', extra: 'x' });

    const failedTest = await kubectl(
      '-n',
      ns,
      'patch',
      'configmap',
      'settings',
      '--type=json',
      '-p',
      '[{"op":"test","path":"/data/mode","value":"prod"}]',
    );
    expect(failedTest.code).toBe(1);
    // As the reference answers (fixtures/kubectl-reference/patch-refusals.json): its 422 keeps no cause.
    expect(failedTest.stderr).toBe(
      'The request is invalid: the server rejected our request due to an error in our request\n',
    );
  });

  test('scale a Deployment', async () => {
    const ns = await freshNamespace();
    await createFixtures(ns, 'deployment.yaml');
    expect(await ok('-n', ns, 'scale', 'deployment', 'web', '--replicas=5')).toBe('deployment.apps/web scaled\n');
    const deployment = await json<{ metadata: { generation: number }; spec: { replicas: number } }>(
      '-n',
      ns,
      'get',
      'deployment',
      'web',
    );
    expect(deployment.spec.replicas).toBe(5);
    expect(deployment.metadata.generation).toBe(2);
    const stale = await kubectl('-n', ns, 'scale', 'deployment', 'web', '--replicas=1', '--current-replicas=3');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe('error: Expected replicas to be 3, was 5\n');
  });

  test('typed create commands: deployment, configmap, secret', async () => {
    const ns = await freshNamespace();
    expect(await ok('-n', ns, 'create', 'deployment', 'typed', '--image=nginx:1.27', '--replicas=3')).toBe(
      'deployment.apps/typed created\n',
    );
    expect(await ok('-n', ns, 'create', 'configmap', 'typed', '--from-literal=key=value')).toBe(
      'configmap/typed created\n',
    );
    expect(await ok('-n', ns, 'create', 'secret', 'generic', 'typed', '--from-literal=token=abc')).toBe(
      'secret/typed created\n',
    );
    const deployment = await json<{ spec: { replicas: number; selector: { matchLabels: Record<string, string> } } }>(
      '-n',
      ns,
      'get',
      'deployment',
      'typed',
    );
    expect(deployment.spec).toMatchObject({ replicas: 3, selector: { matchLabels: { app: 'typed' } } });
    const secret = await json<{ data: Record<string, string> }>('-n', ns, 'get', 'secret', 'typed');
    expect(secret.data).toEqual({ token: Buffer.from('abc').toString('base64') });
  });

  test('delete objects, and a namespace with content, which disappears with it', async () => {
    const ns = await freshNamespace();
    await createFixtures(ns, 'deployment.yaml', 'configmap.yaml', 'secret.yaml', 'service.yaml');
    expect(await ok('-n', ns, 'delete', 'configmap', 'settings')).toBe('configmap "settings" deleted\n');
    const gone = await kubectl('-n', ns, 'get', 'configmap', 'settings');
    expect(gone.stderr).toContain('Error from server (NotFound): configmaps "settings" not found');

    expect(await ok('delete', 'namespace', ns, '--timeout=20s')).toBe(`namespace "${ns}" deleted\n`);
    const namespace = await kubectl('get', 'namespace', ns);
    expect(namespace.stderr).toContain(`Error from server (NotFound): namespaces "${ns}" not found`);
    for (const resource of ['deployments', 'secrets', 'services']) {
      expect(await kubectl('-n', ns, 'get', resource, '-o', 'name')).toMatchObject({ code: 0, stdout: '' });
    }
  });

  test('api-resources, api-versions and version', async () => {
    const resources = await ok('api-resources');
    expect(resources).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\n/);
    expect(resources).toMatch(/\ndeployments\s+deploy\s+apps\/v1\s+true\s+Deployment\n/);
    expect(resources).toMatch(/\nnamespaces\s+ns\s+v1\s+false\s+Namespace\n/);
    expect(resources).toMatch(/\nhorizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler\n/);
    expect(resources).toMatch(/\nleases\s+coordination\.k8s\.io\/v1\s+true\s+Lease\n/);

    // Recorded from kube-apiserver v1.34.4 with its defaults: the same groups, versions, kinds,
    // verbs, short names and categories, to the column.
    expect(await ok('api-resources', '-o', 'wide')).toBe(
      readFileSync(fixture('reference-api-resources-wide.txt'), 'utf8'),
    );

    const versions = (await ok('api-versions')).trim().split('\n');
    expect(versions).toEqual(
      expect.arrayContaining([
        'v1',
        'apps/v1',
        'batch/v1',
        'autoscaling/v1',
        'autoscaling/v2',
        'events.k8s.io/v1',
        'rbac.authorization.k8s.io/v1',
      ]),
    );

    const version = JSON.parse(await ok('version', '-o', 'json')) as {
      serverVersion: { gitVersion: string; major: string; minor: string };
    };
    expect(version.serverVersion).toMatchObject({ major: '1', minor: '34' });
    expect(version.serverVersion.gitVersion).toMatch(/^v1\.34\.\d+/);
  });

  test('create -f with a misspelled field: strict by default, one warning with --validate=warn', async () => {
    const ns = await freshNamespace();
    const path = fixture('deployment-misspelled.yaml');
    const strict = await kubectl('-n', ns, 'create', '-f', path);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toBe(
      `Error from server (BadRequest): error when creating "${path}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicass"\n`,
    );
    expect(await kubectl('-n', ns, 'get', 'deployments', '-o', 'name')).toMatchObject({ code: 0, stdout: '' });

    const warned = await kubectl('-n', ns, 'create', '-f', path, '--validate=warn');
    expect(warned).toMatchObject({
      code: 0,
      stdout: 'deployment.apps/misspelled created\n',
      stderr: 'Warning: unknown field "spec.replicass"\n',
    });
  });

  describe('garbage collection of a ReplicaSet owned by a Deployment', () => {
    async function deploymentWithReplicaSet(
      options: { finalizer?: string } = {},
    ): Promise<{ ns: string; uid: string }> {
      const ns = await freshNamespace();
      await createFixtures(ns, 'deployment.yaml');
      const uid = await ok('-n', ns, 'get', 'deployment', 'web', '-o', 'jsonpath={.metadata.uid}');
      const replicaSet = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: 'web-1',
          namespace: ns,
          ...(options.finalizer ? { finalizers: [options.finalizer] } : {}),
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid, controller: true, blockOwnerDeletion: true },
          ],
        },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
          },
        },
      };
      expectSuccess(await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(replicaSet) }));
      return { ns, uid };
    }

    const exists = async (ns: string, resource: string) =>
      (await kubectl('-n', ns, 'get', resource, '-o', 'name')).stdout !== '';

    test('background (the default): the ReplicaSet goes after the Deployment', async () => {
      const { ns } = await deploymentWithReplicaSet();
      await ok('-n', ns, 'delete', 'deployment', 'web');
      await waitUntil(
        'the ReplicaSet is collected',
        async () => !(await exists(ns, 'replicaset/web-1')),
        WAIT_MS,
        POLL_MS,
      );
    });

    test('--cascade=orphan: the ReplicaSet stays, without its owner reference', async () => {
      const { ns } = await deploymentWithReplicaSet();
      await ok('-n', ns, 'delete', 'deployment', 'web', '--cascade=orphan');
      expect(await exists(ns, 'deployments')).toBe(false);
      const replicaSet = await json<{ metadata: { ownerReferences?: unknown[]; deletionTimestamp?: string } }>(
        '-n',
        ns,
        'get',
        'replicaset',
        'web-1',
      );
      expect(replicaSet.metadata.ownerReferences).toBeUndefined();
      expect(replicaSet.metadata.deletionTimestamp).toBeUndefined();
    });

    test('--cascade=foreground: the Deployment waits until its dependents are gone', async () => {
      const { ns } = await deploymentWithReplicaSet({ finalizer: 'example.com/hold' });
      await ok('-n', ns, 'delete', 'deployment', 'web', '--cascade=foreground', '--wait=false');

      await waitUntil(
        'the ReplicaSet is being deleted',
        async () => {
          const replicaSet = await json<{ metadata: { deletionTimestamp?: string } }>(
            '-n',
            ns,
            'get',
            'replicaset',
            'web-1',
          );
          return replicaSet.metadata.deletionTimestamp !== undefined;
        },
        WAIT_MS,
        POLL_MS,
      );
      const waiting = await json<{ metadata: { deletionTimestamp?: string; finalizers?: string[] } }>(
        '-n',
        ns,
        'get',
        'deployment',
        'web',
      );
      expect(waiting.metadata.deletionTimestamp).toBeDefined();
      expect(waiting.metadata.finalizers).toEqual(['foregroundDeletion']);

      await ok(
        '-n',
        ns,
        'patch',
        'replicaset',
        'web-1',
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/metadata/finalizers"}]',
      );
      await waitUntil(
        'the Deployment follows its ReplicaSet',
        async () => !(await exists(ns, 'deployments')),
        WAIT_MS,
        POLL_MS,
      );
      expect(await exists(ns, 'replicasets')).toBe(false);
    });
  });

  test('a foreground deletion of an ownerReference cycle finishes (the collector breaks the cycle)', async () => {
    const ns = await freshNamespace();
    const uidOf = async (name: string) => ok('-n', ns, 'get', 'configmap', name, '-o', 'jsonpath={.metadata.uid}');
    expectSuccess(await kubectl('-n', ns, 'create', 'configmap', 'first'));
    expectSuccess(await kubectl('-n', ns, 'create', 'configmap', 'second'));
    const owner = (name: string, uid: string) => ({
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid, blockOwnerDeletion: true }],
    });
    const [first, second] = [await uidOf('first'), await uidOf('second')];
    expectSuccess(
      await kubectl(
        '-n',
        ns,
        'patch',
        'configmap',
        'first',
        '--type=merge',
        '-p',
        JSON.stringify({ metadata: owner('second', second) }),
      ),
    );
    expectSuccess(
      await kubectl(
        '-n',
        ns,
        'patch',
        'configmap',
        'second',
        '--type=merge',
        '-p',
        JSON.stringify({ metadata: owner('first', first) }),
      ),
    );
    await ok('-n', ns, 'delete', 'configmap', 'first', '--cascade=foreground', '--wait=false');
    await waitUntil(
      'both ConfigMaps are gone',
      async () => {
        const left = await ok('-n', ns, 'get', 'configmaps', '-o', 'name');
        return !left.includes('configmap/first') && !left.includes('configmap/second');
      },
      WAIT_MS,
      POLL_MS,
    );
  });

  test('the default/kubernetes Service has a clusterIP', async () => {
    const clusterIP = await ok('-n', 'default', 'get', 'service', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}');
    expect(clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const endpoints = await ok(
      '-n',
      'default',
      'get',
      'endpoints',
      'kubernetes',
      '-o',
      'jsonpath={.subsets[0].ports[0].port}',
    );
    expect(Number(endpoints)).toBeGreaterThan(0);
  });
});
