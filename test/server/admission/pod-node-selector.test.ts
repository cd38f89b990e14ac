/**
 * PodNodeSelector with its configuration file, against a real server: each answer is the one
 * kube-apiserver v1.34.4 gave with the same AdmissionConfiguration and namespaces.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../../helpers/server';

const json = { 'content-type': 'application/json' };

describe('PodNodeSelector', () => {
  let server: TestServer;
  let configDir: string;

  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'pod-node-selector-'));
    writeFileSync(
      join(configDir, 'admission.yaml'),
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodNodeSelector\n  path: podnodeselector.yaml\n',
    );
    writeFileSync(
      join(configDir, 'podnodeselector.yaml'),
      'podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: env=prod\n  limited: tier=web\n',
    );
    server = await startServer({
      flags: [
        '--enable-admission-plugins=PodNodeSelector',
        `--admission-control-config-file=${join(configDir, 'admission.yaml')}`,
      ],
    });
    for (const namespace of [
      { name: 'limited' },
      { name: 'annotated', annotations: { 'scheduler.alpha.kubernetes.io/node-selector': 'disk=ssd' } },
      { name: 'set-based', annotations: { 'scheduler.alpha.kubernetes.io/node-selector': 'env in (a,b)' } },
      { name: 'doubled', annotations: { 'scheduler.alpha.kubernetes.io/node-selector': 'env==prod' } },
      { name: 'bad-key', annotations: { 'scheduler.alpha.kubernetes.io/node-selector': ' env! = x ' } },
      { name: 'bad-value', annotations: { 'scheduler.alpha.kubernetes.io/node-selector': 'env=a b' } },
    ]) {
      const created = await server.request('POST', '/api/v1/namespaces', {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: namespace }),
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
    name: string,
    nodeSelector?: Record<string, string>,
  ): Promise<{ nodeSelector?: Record<string, string>; message?: string }> {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'i' }], ...(nodeSelector ? { nodeSelector } : {}) },
    };
    const answer = await server.request('POST', `/api/v1/namespaces/${namespace}/pods?dryRun=All`, {
      body: JSON.stringify(pod),
      headers: json,
    });
    const body = JSON.parse(answer.body) as { spec?: { nodeSelector?: Record<string, string> }; message?: string };
    return answer.status === 201 ? { nodeSelector: body.spec?.nodeSelector } : { message: body.message };
  }

  it("merges the cluster's default selector, refusing a pod that asks otherwise", async () => {
    expect(await podIn('default', 'a')).toEqual({ nodeSelector: { env: 'prod' } });
    expect(await podIn('default', 'c', { x: 'y' })).toEqual({ nodeSelector: { env: 'prod', x: 'y' } });
    expect(await podIn('default', 'b', { env: 'dev' })).toEqual({
      message: 'pods "b" is forbidden: pod node label selector conflicts with its namespace node label selector',
    });
  });

  it("a namespace's annotation takes the default's place", async () => {
    expect(await podIn('annotated', 'd')).toEqual({ nodeSelector: { disk: 'ssd' } });
    expect(await podIn('annotated', 'e', { disk: 'hdd' })).toEqual({
      message: 'pods "e" is forbidden: pod node label selector conflicts with its namespace node label selector',
    });
  });

  it("a namespace's annotation is `k=v` pairs only, each checked as a label, as the reference reads it", async () => {
    // The reference answers these with a bare 500 (the namespace is misconfigured); the pod is refused with 403 here.
    const refused = (name: string, reason: string) => ({ message: `pods "${name}" is forbidden: ${reason}` });
    expect(await podIn('set-based', 'i')).toEqual(refused('i', 'invalid selector: [env in (a]'));
    expect(await podIn('doubled', 'j')).toEqual(refused('j', 'invalid selector: [env  prod]'));
    expect(await podIn('bad-key', 'k')).toEqual(
      refused(
        'k',
        `<nil>: Invalid value: "env!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ),
    );
    expect(await podIn('bad-value', 'l')).toEqual(
      refused(
        'l',
        `[env]: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ),
    );
  });

  it("a namespace's whitelist refuses any label beyond it, the merged default included", async () => {
    for (const [name, selector] of [
      ['f', undefined],
      ['g', { tier: 'web' }],
      ['h', { other: '1' }],
    ] as const) {
      expect(await podIn('limited', name, selector)).toEqual({
        message: `pods "${name}" is forbidden: pod node label selector labels conflict with its namespace whitelist`,
      });
    }
  });
});
