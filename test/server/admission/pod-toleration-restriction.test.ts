/**
 * PodTolerationRestriction with its configuration file, against a real server: each answer is
 * the one kube-apiserver v1.34.4 gave with the same AdmissionConfiguration, namespaces and pods.
 * DefaultTolerationSeconds, on by default and earlier in the chain, has added its two NoExecute
 * tolerations by the time this plugin looks, so the whitelists must allow them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from '../../helpers/capstan-process';
import { startServer, type TestServer } from '../../helpers/server';

const json = { 'content-type': 'application/json' };
const DEFAULTS = 'scheduler.alpha.kubernetes.io/defaultTolerations';
const WHITELIST = 'scheduler.alpha.kubernetes.io/tolerationsWhitelist';

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

const NOT_READY = {
  key: 'node.kubernetes.io/not-ready',
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: 300,
};
const UNREACHABLE = { ...NOT_READY, key: 'node.kubernetes.io/unreachable' };
const MEMORY_PRESSURE = { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' };
const CLUSTER_DEFAULT = { key: 'cluster-default', operator: 'Exists', effect: 'NoSchedule' };
const NAMESPACE_DEFAULT = { key: 'ns-default', operator: 'Exists', effect: 'NoSchedule' };
// The reference answers these with a bare 500; the pod is what is refused, so capstan says 403.
const conflict = (scope: string, pod = 'p') => ({
  code: 403,
  message: `pods "${pod}" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`,
});

describe('PodTolerationRestriction', () => {
  let server: TestServer;
  let configDir: string;

  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'pod-toleration-restriction-'));
    writeFileSync(
      join(configDir, 'admission.yaml'),
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodTolerationRestriction\n  path: podtolerationrestriction.yaml\n',
    );
    writeFileSync(
      join(configDir, 'podtolerationrestriction.yaml'),
      [
        'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1',
        'kind: Configuration',
        'default:',
        '- {key: cluster-default, operator: Exists, effect: NoSchedule}',
        'whitelist:',
        '- {key: cluster-default, operator: Exists}',
        '- {key: allowed, operator: Equal, value: "yes"}',
        '- {key: node.kubernetes.io/memory-pressure, operator: Exists, effect: NoSchedule}',
        '- {operator: Exists, effect: NoExecute}',
        '',
      ].join('\n'),
    );
    server = await startServer({
      flags: [
        '--enable-admission-plugins=PodTolerationRestriction',
        `--admission-control-config-file=${join(configDir, 'admission.yaml')}`,
      ],
    });
    for (const [name, annotations] of [
      ['plain', {}],
      [
        'restricted',
        {
          [DEFAULTS]: JSON.stringify([NAMESPACE_DEFAULT]),
          [WHITELIST]: JSON.stringify([
            { key: 'ns-default', operator: 'Exists' },
            { operator: 'Exists', effect: 'NoExecute' },
          ]),
        },
      ],
      ['empty', { [DEFAULTS]: '', [WHITELIST]: '' }],
      ['not-a-list', { [DEFAULTS]: '{"key":"a"}' }],
      ['wrong-field', { [DEFAULTS]: '[{"key":1}]' }],
      ['wrong-operator', { [DEFAULTS]: '[{"operator":true}]' }],
      ['fractional', { [DEFAULTS]: '[{"tolerationSeconds":1.5}]' }],
      ['not-json', { [DEFAULTS]: '[x]' }],
      ['bad-whitelist', { [WHITELIST]: '[1]' }],
    ] as const) {
      const created = await server.request('POST', '/api/v1/namespaces', {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, annotations } }),
        headers: json,
      });
      expect(created.status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(configDir, { recursive: true, force: true });
  });

  async function podIn(
    namespace: string,
    tolerations?: Toleration[],
    options: { burstable?: boolean; dryRun?: boolean; name?: string } = {},
  ): Promise<{ tolerations?: Toleration[]; code?: number; message?: string }> {
    const container = {
      name: 'c',
      image: 'i',
      ...(options.burstable ? { resources: { requests: { memory: '1Mi' } } } : {}),
    };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: options.name ?? 'p' },
      spec: { containers: [container], ...(tolerations ? { tolerations } : {}) },
    };
    const answer = await server.request(
      'POST',
      `/api/v1/namespaces/${namespace}/pods${options.dryRun === false ? '' : '?dryRun=All'}`,
      { body: JSON.stringify(pod), headers: json },
    );
    const body = answer.json<{
      spec?: { tolerations?: Toleration[] };
      code: number;
      message: string;
    }>();
    return answer.status === 201 ? { tolerations: body.spec?.tolerations } : { code: body.code, message: body.message };
  }

  it("merges the configuration's defaults and holds pods to its whitelist", async () => {
    expect(await podIn('plain')).toEqual({ tolerations: [NOT_READY, UNREACHABLE, CLUSTER_DEFAULT] });
    // A pod that is not BestEffort also tolerates memory pressure.
    expect(await podIn('plain', undefined, { burstable: true })).toEqual({
      tolerations: [NOT_READY, UNREACHABLE, CLUSTER_DEFAULT, MEMORY_PRESSURE],
    });
    const allowed = { key: 'allowed', operator: 'Equal', value: 'yes', effect: 'NoSchedule' };
    expect(await podIn('plain', [allowed])).toEqual({
      tolerations: [allowed, NOT_READY, UNREACHABLE, CLUSTER_DEFAULT],
    });
    expect(await podIn('plain', [{ key: 'other', operator: 'Exists' }])).toEqual(conflict('cluster'));
  });

  it("a namespace's annotations take the configuration's place", async () => {
    expect(await podIn('restricted')).toEqual({ tolerations: [NOT_READY, UNREACHABLE, NAMESPACE_DEFAULT] });
    // A default the pod's own toleration covers is not added.
    const covering = { key: 'ns-default', operator: 'Exists' };
    expect(await podIn('restricted', [covering])).toEqual({ tolerations: [covering, NOT_READY, UNREACHABLE] });
    expect(await podIn('restricted', [{ key: 'allowed', operator: 'Equal', value: 'yes' }])).toEqual(
      conflict('namespace'),
    );
    // Not BestEffort: the memory-pressure toleration is beyond the namespace's whitelist.
    expect(await podIn('restricted', undefined, { burstable: true })).toEqual(conflict('namespace'));
    // Empty annotations: no defaults and no whitelist, the configuration's neither.
    const other = { key: 'other', operator: 'Exists' };
    expect(await podIn('empty', [other])).toEqual({ tolerations: [other, NOT_READY, UNREACHABLE] });
  });

  it('an update is held to the whitelist, with no defaults added', async () => {
    expect(await podIn('restricted', undefined, { dryRun: false, name: 'kept' })).toEqual({
      tolerations: [NOT_READY, UNREACHABLE, NAMESPACE_DEFAULT],
    });
    const patch = async (added: Toleration) => {
      const answer = await server.request('PATCH', '/api/v1/namespaces/restricted/pods/kept', {
        body: JSON.stringify({ spec: { tolerations: [NOT_READY, UNREACHABLE, NAMESPACE_DEFAULT, added] } }),
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      const body = answer.json<{ spec?: { tolerations?: Toleration[] }; code: number; message: string }>();
      return answer.status === 200
        ? { tolerations: body.spec?.tolerations }
        : { code: body.code, message: body.message };
    };
    expect(await patch({ key: 'other', operator: 'Exists' })).toEqual(conflict('namespace', 'kept'));
    const allowed = { key: 'ns-default', operator: 'Equal', value: 'v' };
    expect(await patch(allowed)).toEqual({ tolerations: [NOT_READY, UNREACHABLE, NAMESPACE_DEFAULT, allowed] });
  });

  it("refuses pods in a namespace whose annotation is no list of tolerations, with Go's decoding error", async () => {
    for (const [namespace, message] of [
      ['not-a-list', 'json: cannot unmarshal object into Go value of type []v1.Toleration'],
      ['wrong-field', 'json: cannot unmarshal number into Go struct field Toleration.key of type string'],
      [
        'wrong-operator',
        'json: cannot unmarshal bool into Go struct field Toleration.operator of type v1.TolerationOperator',
      ],
      [
        'fractional',
        'json: cannot unmarshal number 1.5 into Go struct field Toleration.tolerationSeconds of type int64',
      ],
      ['not-json', "invalid character 'x' looking for beginning of value"],
      ['bad-whitelist', 'json: cannot unmarshal number into Go value of type v1.Toleration'],
    ]) {
      expect(await podIn(namespace)).toEqual({ code: 500, message });
    }
  });

  /** What a server with the configuration `yaml` says as it refuses to start. */
  function refusal(yaml: string): { status: number | null; lastLine: string | undefined } {
    writeFileSync(join(configDir, 'podtolerationrestriction.yaml'), yaml);
    const refused = spawnSync(
      process.execPath,
      [
        MAIN,
        '--secure-port',
        '0',
        '--data-dir',
        join(configDir, 'never'),
        '--enable-admission-plugins=PodTolerationRestriction',
        `--admission-control-config-file=${join(configDir, 'admission.yaml')}`,
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    return { status: refused.status, lastLine: refused.stderr.trimEnd().split('\n').pop() };
  }

  it('refuses to start with a configuration of another kind, or invalid tolerations in it', () => {
    expect(refusal('apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Other\n')).toEqual({
      status: 2,
      lastLine:
        'capstan: failed to apply admission: couldn\'t init admission plugin "PodTolerationRestriction": no kind "Other" is registered for version "podtolerationrestriction.admission.k8s.io/v1alpha1" in scheme "pkg/runtime/scheme.go:110"',
    });
    const invalid = refusal(
      [
        'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1',
        'kind: Configuration',
        'default:',
        '- {operator: Equal, value: x}',
        'whitelist:',
        '- {key: a b, operator: Exists, tolerationSeconds: 5}',
        '',
      ].join('\n'),
    );
    expect(invalid).toEqual({
      status: 2,
      lastLine:
        "capstan: failed to apply admission: couldn't init admission plugin \"PodTolerationRestriction\": invalid config: [podtolerationrestriction.default[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\" podtolerationrestriction.whitelist[0].key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') podtolerationrestriction.whitelist[0].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set]",
    });
  });
});
