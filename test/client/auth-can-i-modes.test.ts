/**
 * `kubectl auth can-i` agrees with the real outcome under the other modes: a node under the
 * Node authorizer (its pods' secrets, not another node's), a user under ABAC, and a user under a
 * webhook the test serves.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canI, forbidden, kubectlAs, type Kubectl } from './auth-can-i-identities';
import { startServer, type TestServer } from '../helpers/server';
import { startWebhookServer, type WebhookServer } from '../server/authz/webhook-server';
import { retryUntil, waitUntil } from '../helpers/wait-for';

jest.setTimeout(120_000);

async function agrees(
  kubectl: Kubectl,
  question: readonly string[],
  real: readonly string[],
  expected: boolean,
): Promise<void> {
  expect(await canI(kubectl, question)).toBe(expected);
  expect(forbidden(await kubectl(real))).toBe(!expected);
}

const podUsing = (name: string, node: string, secret: string) => `
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: apps}
spec:
  nodeName: ${node}
  containers: [{name: c, image: busybox}]
  volumes: [{name: s, secret: {secretName: ${secret}}}]
`;

describe('under the Node authorizer', () => {
  let server: TestServer;
  let node: Kubectl;
  beforeAll(async () => {
    server = await startServer({ flags: ['--authorization-mode=Node,RBAC'] });
    const setup = [
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}',
      'apiVersion: v1\nkind: Secret\nmetadata: {name: mine, namespace: apps}\nstringData: {k: v}',
      'apiVersion: v1\nkind: Secret\nmetadata: {name: theirs, namespace: apps}\nstringData: {k: v}',
      podUsing('on-n1', 'n1', 'mine'),
      podUsing('on-n2', 'n2', 'theirs'),
    ].join('\n---\n');
    const applied = await server.kubectl(['apply', '-f', '-'], { input: setup });
    expect(applied.stderr).toBe('');
    node = await kubectlAs(server, 'system:node:n1', ['system:nodes']);
  });
  afterAll(() => server?.stop());

  it('a node reads the secret of a pod bound to it, and not the secret of a pod bound elsewhere', async () => {
    await agrees(node, ['get', 'secrets/mine', '-n', 'apps'], ['get', 'secret', 'mine', '-n', 'apps'], true);
    await agrees(node, ['get', 'secrets/theirs', '-n', 'apps'], ['get', 'secret', 'theirs', '-n', 'apps'], false);
    await agrees(node, ['list', 'secrets', '-n', 'apps'], ['get', 'secrets', '-n', 'apps'], false);
  });

  it('a node reads its own pods and Node only', async () => {
    await agrees(node, ['get', 'pods/on-n1', '-n', 'apps'], ['get', 'pod', 'on-n1', '-n', 'apps'], true);
    await agrees(node, ['get', 'pods/on-n2', '-n', 'apps'], ['get', 'pod', 'on-n2', '-n', 'apps'], false);
    await agrees(node, ['get', 'nodes/n2'], ['get', 'node', 'n2'], false);
  });

  it('follows pods as they are bound and removed', async () => {
    expect((await server.kubectl(['apply', '-f', '-'], { input: podUsing('moved', 'n1', 'theirs') })).code).toBe(0);
    await retryUntil(
      () => canI(node, ['get', 'secrets/theirs', '-n', 'apps']),
      (allowed) => allowed,
      5_000,
    );
    await agrees(node, ['get', 'secrets/theirs', '-n', 'apps'], ['get', 'secret', 'theirs', '-n', 'apps'], true);
    expect((await server.kubectl(['delete', 'pod', 'moved', '-n', 'apps', '--grace-period=0', '--force'])).code).toBe(
      0,
    );
    await retryUntil(
      () => canI(node, ['get', 'secrets/theirs', '-n', 'apps']),
      (allowed) => !allowed,
      5_000,
    );
    await agrees(node, ['get', 'secrets/theirs', '-n', 'apps'], ['get', 'secret', 'theirs', '-n', 'apps'], false);
  });
});

describe('under ABAC', () => {
  let dir: string;
  let server: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-abac-client-'));
    const policy = (spec: object) =>
      JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });
    writeFileSync(
      join(dir, 'policy.jsonl'),
      [
        policy({ group: 'system:authenticated', readonly: true, nonResourcePath: '*' }),
        policy({
          group: 'system:authenticated',
          apiGroup: 'authorization.k8s.io',
          resource: 'selfsubjectaccessreviews',
          namespace: '*',
        }),
        policy({ user: 'bob', namespace: 'team', resource: 'configmaps', apiGroup: '', readonly: true }),
        policy({ user: 'carol', namespace: '*', resource: '*', apiGroup: '*' }),
      ].join('\n'),
    );
    server = await startServer({
      flags: ['--authorization-mode=ABAC', `--authorization-policy-file=${join(dir, 'policy.jsonl')}`],
    });
    expect((await server.kubectl(['create', 'namespace', 'team'])).code).toBe(0);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('can-i agrees with the real request for a read-only policy and a full one', async () => {
    const bob = await kubectlAs(server, 'bob');
    await agrees(bob, ['list', 'configmaps', '-n', 'team'], ['get', 'configmaps', '-n', 'team'], true);
    await agrees(bob, ['create', 'configmaps', '-n', 'team'], ['create', 'configmap', 'x', '-n', 'team'], false);
    await agrees(bob, ['list', 'configmaps', '-n', 'default'], ['get', 'configmaps', '-n', 'default'], false);
    const carol = await kubectlAs(server, 'carol');
    await agrees(carol, ['create', 'configmaps', '-n', 'team'], ['create', 'configmap', 'x', '-n', 'team'], true);
  });
});

describe('under a webhook', () => {
  let dir: string;
  let webhook: WebhookServer;
  let server: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-webhook-client-'));
    webhook = await startWebhookServer(({ spec }) => {
      const resource = spec.resourceAttributes as Record<string, string> | undefined;
      if (spec.user !== 'wendy' || resource === undefined) return { allowed: false };
      if (resource.resource === 'configmaps' && ['get', 'list', 'watch'].includes(resource.verb))
        return { allowed: true, reason: 'wendy reads configmaps' };
      if (resource.resource === 'secrets') return { allowed: false, denied: true, reason: 'never secrets' };
      return { allowed: false };
    });
    server = await startServer({
      flags: [
        '--authorization-mode=Webhook,RBAC',
        `--authorization-webhook-config-file=${webhook.kubeconfigFor(dir)}`,
        '--authorization-webhook-version=v1',
      ],
    });
  });
  afterAll(async () => {
    await server?.stop();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('can-i agrees with the real request for what the webhook allows, denies and has no opinion on', async () => {
    const wendy = await kubectlAs(server, 'wendy');
    await agrees(wendy, ['list', 'configmaps', '-n', 'default'], ['get', 'configmaps', '-n', 'default'], true);
    await agrees(
      wendy,
      ['create', 'configmaps', '-n', 'default'],
      ['create', 'configmap', 'x', '-n', 'default'],
      false,
    );
    await agrees(wendy, ['list', 'secrets', '-n', 'default'], ['get', 'secrets', '-n', 'default'], false);
    // A denial short-circuits: even a binding that grants secrets is never asked.
    expect(
      (
        await server.kubectl([
          'create',
          'clusterrolebinding',
          'wendy-admin',
          '--clusterrole=cluster-admin',
          '--user=wendy',
        ])
      ).code,
    ).toBe(0);
    // RBAC has the binding once it grants what the webhook has no opinion on.
    await waitUntil('the binding in RBAC', () => canI(wendy, ['create', 'configmaps', '-n', 'default']), 10_000, 100);
    await agrees(wendy, ['list', 'secrets', '-n', 'default'], ['get', 'secrets', '-n', 'default'], false);
    await agrees(wendy, ['create', 'configmaps', '-n', 'default'], ['create', 'configmap', 'x', '-n', 'default'], true);
  });
});
