/**
 * PodSecurity admission through kubectl as a user meets it: enforce refusals, warnings on pods
 * and on workload templates, namespace label validation, warnings when a label tightens
 * enforcement over existing pods, and exemptions and defaults from
 * `--admission-control-config-file`; each text as kube-apiserver v1.34.4 gave it for the same
 * request. Audit annotations are checked on the plugin itself (the request's audit event takes
 * them from there).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { podSecurityConfiguration } from '../../../server/admission/plugins/pod-security/configuration';
import { podSecurityPlugin } from '../../../server/admission/plugins/pod-security/plugin';
import type { AdmissionAttributes } from '../../../server/admission/types';
import { admissionAttributes } from '../../helpers/admission-attributes';
import type { ObjectStorage } from '../../../storage/objects/types';
import { ensureBuilt, failingStart } from '../../helpers/capstan-process';
import { startServer, type TestServer } from '../../helpers/server';

import type { KubeObject } from '../../../api/objects';
const pod = (name: string, spec: string, namespace: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${namespace}}\nspec: {${spec}containers: [{name: c, image: nginx}]}\n`;
const RESTRICTED_PLAIN_C =
  'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe('PodSecurity', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    for (const namespace of ['psr', 'psb', 'tight'])
      expect((await server.kubectl(['create', 'namespace', namespace])).code).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function create(yaml: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const result = await server.kubectl(['create', '-f', '-'], { input: yaml });
    return { code: result.code, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
  }

  it('enforce refuses a pod with every violation named, and warn adds warnings, at the labelled versions', async () => {
    expect((await server.kubectl(['label', 'ns', 'psr', 'pod-security.kubernetes.io/enforce=restricted'])).code).toBe(
      0,
    );
    expect(await create(pod('plain', '', 'psr'))).toMatchObject({
      code: 1,
      stderr: `Error from server (Forbidden): error when creating "STDIN": pods "plain" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_PLAIN_C}`,
    });
    const ports =
      'apiVersion: v1\nkind: Pod\nmetadata: {name: ports, namespace: psr}\nspec: {containers: [{name: c, image: nginx, ports: [{containerPort: 80, hostPort: 8080}, {containerPort: 81, hostPort: 443}]}, {name: d, image: nginx, ports: [{containerPort: 82, hostPort: 9000}]}]}\n';
    expect((await create(ports)).stderr).toContain(
      'pods "ports" is forbidden: violates PodSecurity "restricted:latest": hostPort (containers "c", "d" use hostPorts 443, 8080, 9000), allowPrivilegeEscalation != false (containers "c", "d" must set',
    );
    const good =
      'apiVersion: v1\nkind: Pod\nmetadata: {name: good, namespace: psr}\nspec: {securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}, containers: [{name: c, image: nginx, securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}}}]}\n';
    expect(await create(good)).toMatchObject({ code: 0, stderr: '' });

    const labels = [
      'pod-security.kubernetes.io/warn=restricted',
      'pod-security.kubernetes.io/enforce=baseline',
      'pod-security.kubernetes.io/enforce-version=v1.33',
    ];
    expect((await server.kubectl(['label', 'ns', 'psb', ...labels])).code).toBe(0);
    expect(await create(pod('caps', 'hostNetwork: true, ', 'psb'))).toMatchObject({
      code: 1,
      stderr:
        'Error from server (Forbidden): error when creating "STDIN": pods "caps" is forbidden: violates PodSecurity "baseline:v1.33": host namespaces (hostNetwork=true)',
    });
    // Before 1.19 seccomp was set by annotations, and restricted did not yet ask to drop capabilities.
    expect((await server.kubectl(['create', 'namespace', 'v18'])).code).toBe(0);
    expect(
      (
        await server.kubectl([
          'label',
          'ns',
          'v18',
          'pod-security.kubernetes.io/enforce=restricted',
          'pod-security.kubernetes.io/enforce-version=v1.18',
        ])
      ).code,
    ).toBe(0);
    const annotated =
      'apiVersion: v1\nkind: Pod\nmetadata: {name: seccompann, namespace: v18, annotations: {seccomp.security.alpha.kubernetes.io/pod: unconfined, container.seccomp.security.alpha.kubernetes.io/c: unconfined}}\nspec: {containers: [{name: c, image: nginx}]}\n';
    expect((await create(annotated)).stderr.split('\n').pop()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": pods "seccompann" is forbidden: violates PodSecurity "restricted:v1.18": seccompProfile (forbidden annotations container.seccomp.security.alpha.kubernetes.io/c="unconfined", seccomp.security.alpha.kubernetes.io/pod="unconfined"), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)',
    );
    // kubectl run, as a user would: admitted at baseline, warned about restricted.
    const run = await server.kubectl(['run', 'web', '-n', 'psb', '--image=nginx']);
    expect({ code: run.code, stderr: run.stderr.trim() }).toEqual({
      code: 0,
      stderr: `Warning: would violate PodSecurity "restricted:latest": ${RESTRICTED_PLAIN_C.replaceAll('"c"', '"web"')}`,
    });
  }, 60_000);

  it('warns on the pod template of a Deployment applied to a warned namespace', async () => {
    const deployment =
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: psb}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx, securityContext: {capabilities: {add: [SYS_ADMIN]}}}]}\n';
    const applied = await server.kubectl(['apply', '-f', '-'], { input: deployment });
    expect({ code: applied.code, stdout: applied.stdout.trim(), stderr: applied.stderr.trim() }).toEqual({
      code: 0,
      stdout: 'deployment.apps/web created',
      stderr:
        'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "web" must set securityContext.capabilities.drop=["ALL"]; container "web" must not include "SYS_ADMIN" in securityContext.capabilities.add), runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "web" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    });
  }, 60_000);

  it('refuses labels that do not parse, and warns when a label tightens enforcement over existing pods', async () => {
    const bad =
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: badlabels, labels: {pod-security.kubernetes.io/enforce: foo, pod-security.kubernetes.io/warn-version: "1.2", pod-security.kubernetes.io/audit: x}}\n';
    expect((await create(bad)).stderr).toBe(
      [
        'The Namespace "badlabels" is invalid: ',
        '* metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted',
        '* metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "x": must be one of privileged, baseline, restricted',
        '* metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.2": must be "latest" or "v1.x"',
      ].join('\n'),
    );
    for (const name of ['a', 'b', 'c']) expect((await create(pod(name, '', 'tight'))).code).toBe(0);
    expect((await create(pod('d', 'hostNetwork: true, ', 'tight'))).code).toBe(0);
    const tightened = await server.kubectl(['label', 'ns', 'tight', 'pod-security.kubernetes.io/enforce=restricted']);
    expect(tightened.stderr.trim().split('\n')).toEqual([
      'Warning: existing pods in namespace "tight" violate the new PodSecurity enforce level "restricted:latest"',
      'Warning: a (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      'Warning: d: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
    // Loosening warns about nothing.
    expect(
      (await server.kubectl(['label', '--overwrite', 'ns', 'tight', 'pod-security.kubernetes.io/enforce=baseline']))
        .stderr,
    ).toBe('');
  }, 60_000);

  it('checks a pod update only when it changes images or adds ephemeral containers', async () => {
    expect((await server.kubectl(['create', 'namespace', 'upd'])).code).toBe(0);
    expect((await server.kubectl(['run', 'u', '-n', 'upd', '--image=nginx'])).code).toBe(0);
    expect((await server.kubectl(['label', 'ns', 'upd', 'pod-security.kubernetes.io/enforce=restricted'])).code).toBe(
      0,
    );
    expect(await server.kubectl(['label', 'pod', 'u', '-n', 'upd', 'x=y'])).toMatchObject({
      code: 0,
      stdout: 'pod/u labeled\n',
    });
    const image = await server.kubectl(['set', 'image', 'pod/u', '-n', 'upd', 'u=nginx:2']);
    expect(image.stderr.trim()).toBe(
      `error: failed to patch image update to pod template: pods "u" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_PLAIN_C.replaceAll('"c"', '"u"')}`,
    );
    const debug = await server.kubectl(['debug', '-n', 'upd', 'u', '--image=busybox', '-c', 'dbg']);
    expect(debug.stderr.trim().split('\n').pop()).toBe(
      'Error from server (Forbidden): pods "u" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (containers "u", "dbg" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (containers "u", "dbg" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or containers "u", "dbg" must set securityContext.runAsNonRoot=true), seccompProfile (pod or containers "u", "dbg" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  }, 60_000);
});

describe('PodSecurity configured by --admission-control-config-file', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-podsecurity-'));
    // The plugin's part in a file of its own, named by a path relative to the AdmissionConfiguration.
    writeFileSync(
      join(dir, 'pod-security.yaml'),
      'apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults: {enforce: privileged, audit: restricted, warn: baseline}\nexemptions: {usernames: [exempt-user], runtimeClasses: [exempt-rc], namespaces: [exempt-ns]}\n',
    );
    writeFileSync(
      join(dir, 'admission.yaml'),
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: pod-security.yaml\n',
    );
    server = await startServer({ flags: ['--admission-control-config-file', join(dir, 'admission.yaml')] });
    expect((await server.kubectl(['create', 'namespace', 'dflt'])).code).toBe(0);
    expect(
      (
        await server.kubectl([
          'create',
          'clusterrolebinding',
          'ex',
          '--clusterrole=cluster-admin',
          '--user=exempt-user',
          '--user=someone-else',
        ])
      ).code,
    ).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the default policy to unlabelled namespaces and spares exempt namespaces and users', async () => {
    const run = (name: string, namespace: string, ...extra: string[]) =>
      server.kubectl([
        'run',
        name,
        '-n',
        namespace,
        '--image=nginx',
        '--overrides={"spec":{"hostNetwork":true}}',
        ...extra,
      ]);
    const p1 = await run('p1', 'dflt');
    expect(p1.stderr.trim()).toBe(
      'Warning: would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)',
    );

    const exemptNamespace = await server.kubectl(['create', '-f', '-'], {
      input:
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: exempt-ns, labels: {pod-security.kubernetes.io/warn: restricted, pod-security.kubernetes.io/enforce: baseline}}\n',
    });
    expect(exemptNamespace.stderr.trim()).toBe(
      'Warning: namespace "exempt-ns" is exempt from Pod Security, and the policy (enforce=baseline:latest, warn=restricted:latest) will be ignored',
    );
    expect(await run('p2', 'exempt-ns')).toMatchObject({ code: 0, stderr: '' });

    const labelled = await server.kubectl(['label', 'ns', 'dflt', 'pod-security.kubernetes.io/enforce=baseline']);
    expect(labelled.stderr.trim().split('\n')).toEqual([
      'Warning: existing pods in namespace "dflt" violate the new PodSecurity enforce level "baseline:latest"',
      'Warning: p1: host namespaces',
    ]);
    expect(await run('p3', 'dflt', '--as', 'exempt-user')).toMatchObject({ code: 0, stderr: '' });
    expect((await run('p4', 'dflt', '--as', 'someone-else')).stderr.trim()).toBe(
      'Error from server (Forbidden): pods "p4" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)',
    );
  }, 60_000);

  it('does not start with an invalid PodSecurity configuration, giving the reference message', async () => {
    ensureBuilt();
    const bad = mkdtempSync(join(tmpdir(), 'capstan-podsecurity-bad-'));
    writeFileSync(
      join(bad, 'admission.yaml'),
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  configuration: {apiVersion: pod-security.admission.config.k8s.io/v1, kind: PodSecurityConfiguration, defaults: {enforce: strict}}\n',
    );
    const failed = await failingStart([
      '--data-dir',
      join(bad, 'data'),
      '--secure-port',
      '0',
      '--admission-control-config-file',
      join(bad, 'admission.yaml'),
    ]);
    rmSync(bad, { recursive: true, force: true });
    expect({ code: failed.code, lastLine: failed.lastLine }).toEqual({
      code: 2,
      lastLine:
        'capstan: failed to apply admission: failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: enforce: must be one of privileged, baseline, restricted',
    });
  }, 60_000);
});

describe('PodSecurity audit annotations', () => {
  const namespaces = (labels: Record<string, string>) =>
    ({
      get: async () => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels } }),
    }) as unknown as ObjectStorage;
  const configuration = podSecurityConfiguration({
    apiVersion: 'pod-security.admission.config.k8s.io/v1',
    kind: 'PodSecurityConfiguration',
    defaults: { audit: 'restricted' },
    exemptions: { usernames: ['exempt-user'], runtimeClasses: ['exempt-rc'] },
  });
  const attributes = (user: string, spec: object): AdmissionAttributes =>
    admissionAttributes({
      resource: { group: '', version: 'v1', resource: 'pods' },
      kind: 'Pod',
      operation: 'CREATE',
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'ns' }, spec } as KubeObject,
      namespace: 'ns',
      userInfo: { name: user, groups: [] },
    });

  it('records the enforced policy, audit violations and exemptions as the reference does', async () => {
    const plugin = podSecurityPlugin({
      storageOf: () => namespaces({ 'pod-security.kubernetes.io/enforce': 'baseline' }),
      configuration,
      checks: { relaxForUserNamespacePods: false },
    });
    const audited = attributes('someone', { hostNetwork: true, containers: [{ name: 'p1', image: 'nginx' }] });
    await expect(plugin.validate!(audited)).rejects.toThrow(
      'pods "p1" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)',
    );
    expect(audited.auditAnnotations).toEqual({
      'pod-security.kubernetes.io/enforce-policy': 'baseline:latest',
      'pod-security.kubernetes.io/audit-violations':
        'would violate PodSecurity "restricted:latest": host namespaces (hostNetwork=true), allowPrivilegeEscalation != false (container "p1" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "p1" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "p1" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "p1" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    });
    const byUser = attributes('exempt-user', { hostNetwork: true, containers: [{ name: 'p1', image: 'nginx' }] });
    await plugin.validate!(byUser);
    expect(byUser.auditAnnotations).toEqual({ 'pod-security.kubernetes.io/exempt': 'user' });
    const byRuntimeClass = attributes('someone', {
      runtimeClassName: 'exempt-rc',
      hostNetwork: true,
      containers: [{ name: 'p1', image: 'nginx' }],
    });
    await plugin.validate!(byRuntimeClass);
    expect(byRuntimeClass.auditAnnotations).toEqual({ 'pod-security.kubernetes.io/exempt': 'runtimeClass' });
  });

  it('refuses an invalid configuration at start with the reference messages', () => {
    const configuration = (body: object) => () =>
      podSecurityConfiguration({
        apiVersion: 'pod-security.admission.config.k8s.io/v1',
        kind: 'PodSecurityConfiguration',
        ...body,
      });
    expect(configuration({ defaults: { enforce: 'strict' }, exemptions: { usernames: ['a', 'a'] } })).toThrow(
      'failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: enforce: must be one of privileged, baseline, restricted',
    );
    expect(
      configuration({
        defaults: { enforce: 'baseline' },
        exemptions: { usernames: ['a', 'a', ''], namespaces: ['Bad_NS'] },
      }),
    ).toThrow(
      'failed to initialize admission plugin "PodSecurity": PodSecurity invalid: [exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), exemptions.usernames[1]: Duplicate value: "a", exemptions.usernames[2]: Invalid value: "": username must not be empty]',
    );
  });
});
