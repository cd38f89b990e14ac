/**
 * ServiceAccount admission through kubectl: the pod kube-apiserver v1.34.4 stores for the same
 * `kubectl run` (compared field by field, the volume's random suffix aside), the opt-outs, the
 * account's image pull secrets, and its refusals, in the reference's words.
 */
import { startServer, type TestServer } from '../../helpers/server';

interface StoredPod {
  spec: {
    serviceAccountName?: string;
    serviceAccount?: string;
    volumes?: Array<{ name: string }>;
    containers: Array<{ volumeMounts?: object[] }>;
    initContainers?: Array<{ volumeMounts?: object[] }>;
    imagePullSecrets?: object[];
  };
}

/** As the reference stored `kubectl run p --image=nginx` in a namespace whose `default` account exists. */
const REFERENCE_TOKEN_VOLUME = {
  projected: {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ],
    defaultMode: 420,
  },
};
const TOKEN_MOUNT = { readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };

describe('ServiceAccount admission', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function run(
    name: string,
    namespace: string,
    overrides?: object,
  ): Promise<{ code: number; pod?: StoredPod; stderr: string }> {
    const args = [
      'run',
      name,
      '-n',
      namespace,
      '--image=nginx',
      '-o',
      'json',
      ...(overrides ? [`--overrides=${JSON.stringify(overrides)}`] : []),
    ];
    const result = await server.kubectl(args);
    return {
      code: result.code,
      pod: result.code === 0 ? JSON.parse(result.stdout) : undefined,
      stderr: result.stderr.trim(),
    };
  }

  it('gives a new pod the default account and the projected API credentials, in a namespace made a moment ago', async () => {
    // The account controller makes `default` just after the namespace; the plugin waits for it as the reference's does.
    expect((await server.kubectl(['create', 'namespace', 'fresh'])).code).toBe(0);
    const { pod } = await run('p', 'fresh', { spec: { initContainers: [{ name: 'i', image: 'busybox' }] } });
    const volumeName = pod!.spec.volumes![0].name;
    expect(volumeName).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod!.spec).toMatchObject({
      serviceAccountName: 'default',
      serviceAccount: 'default',
      volumes: [{ name: volumeName, ...REFERENCE_TOKEN_VOLUME }],
      containers: [{ volumeMounts: [{ name: volumeName, ...TOKEN_MOUNT }] }],
      initContainers: [{ volumeMounts: [{ name: volumeName, ...TOKEN_MOUNT }] }],
    });
  }, 60_000);

  it('follows automountServiceAccountToken of the account and the pod, and takes the account image pull secrets', async () => {
    const account =
      'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: pulls, namespace: default}\nautomountServiceAccountToken: false\nimagePullSecrets: [{name: reg}]\n';
    expect((await server.kubectl(['create', '-f', '-'], { input: account })).code).toBe(0);
    const quiet = await run('a1', 'default', { spec: { serviceAccountName: 'pulls' } });
    expect(quiet.pod!.spec.volumes).toBeUndefined();
    expect(quiet.pod!.spec.imagePullSecrets).toEqual([{ name: 'reg' }]);
    // The deprecated spelling names the account too, and is written back equal to the name, as the reference converts it.
    const deprecated = await run('a0', 'default', { spec: { serviceAccount: 'pulls' } });
    expect(deprecated.pod!.spec).toMatchObject({
      serviceAccountName: 'pulls',
      serviceAccount: 'pulls',
      imagePullSecrets: [{ name: 'reg' }],
    });
    const asked = await run('a2', 'default', {
      spec: { serviceAccountName: 'pulls', automountServiceAccountToken: true, imagePullSecrets: [{ name: 'own' }] },
    });
    expect(asked.pod!.spec.volumes).toHaveLength(1);
    expect(asked.pod!.spec.imagePullSecrets).toEqual([{ name: 'own' }]);
  }, 60_000);

  it('refuses a missing account, unlisted secrets of an enforcing account and mirror pods that reference accounts or secrets', async () => {
    const enforcing =
      'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: strict, namespace: default, annotations: {kubernetes.io/enforce-mountable-secrets: "true"}}\nsecrets: [{name: ok}]\n';
    expect((await server.kubectl(['create', '-f', '-'], { input: enforcing })).code).toBe(0);
    const refusals: Array<[string, object, string]> = [
      [
        'q',
        { spec: { serviceAccountName: 'nope' } },
        'pods "q" is forbidden: error looking up service account default/nope: serviceaccount "nope" not found',
      ],
      [
        'a3',
        { spec: { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'bad' } }] } },
        'pods "a3" is forbidden: volume with secret.secretName="bad" is not allowed because service account strict does not reference that secret',
      ],
      [
        'a5',
        {
          spec: {
            serviceAccountName: 'strict',
            containers: [{ name: 'a5', image: 'nginx', envFrom: [{ secretRef: { name: 'zz' } }] }],
          },
        },
        'pods "a5" is forbidden: container a5 with envFrom referencing secret.secretName="zz" is not allowed because service account strict does not reference that secret',
      ],
      [
        'm2',
        {
          metadata: { annotations: { 'kubernetes.io/config.mirror': 'x' } },
          spec: { nodeName: 'n', serviceAccountName: 'strict' },
        },
        'pods "m2" is forbidden: a mirror pod may not reference service accounts',
      ],
      [
        'm3',
        {
          metadata: { annotations: { 'kubernetes.io/config.mirror': 'x' } },
          spec: { nodeName: 'n', imagePullSecrets: [{ name: 'x' }] },
        },
        'pods "m3" is forbidden: a mirror pod may not reference secrets',
      ],
    ];
    for (const [name, overrides, message] of refusals) {
      expect(await run(name, 'default', overrides)).toMatchObject({
        code: 1,
        stderr: `Error from server (Forbidden): ${message}`,
      });
    }
  }, 60_000);

  // The reference answers this refusal with a bare 500 (its plugin returns the error without
  // admission.NewForbidden); capstan refuses it as every other unlisted secret, with a 403.
  it('refuses an ephemeral container that uses a secret an enforcing account does not list with a 403', async () => {
    const enforcing =
      'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: strict-debug, namespace: default, annotations: {kubernetes.io/enforce-mountable-secrets: "true"}}\nsecrets: [{name: ok}]\n';
    expect((await server.kubectl(['create', '-f', '-'], { input: enforcing })).code).toBe(0);
    expect((await run('debugged', 'default', { spec: { serviceAccountName: 'strict-debug' } })).code).toBe(0);
    const ephemeral = (secret: string) => ({
      spec: {
        ephemeralContainers: [
          {
            name: 'debug',
            image: 'busybox',
            env: [{ name: 'E', valueFrom: { secretKeyRef: { name: secret, key: 'k' } } }],
          },
        ],
      },
    });
    const patch = (secret: string) =>
      server.request('PATCH', '/api/v1/namespaces/default/pods/debugged/ephemeralcontainers', {
        body: JSON.stringify(ephemeral(secret)),
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
      });
    const refused = await patch('other');
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({
      reason: 'Forbidden',
      message:
        'pods "debugged" is forbidden: ephemeral container debug with envVar E referencing secret.secretName="other" is not allowed because service account strict-debug does not reference that secret',
    });
    expect((await patch('ok')).status).toBe(200);
  }, 60_000);
});
