/**
 * `kubectl auth whoami -o json` prints exactly the identity each way of proving it gives, and
 * bad credentials are 401, never anonymous. Users are in `system:masters` where they must be
 * allowed to create the review itself while the server has no RBAC.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateCredentialId } from '../helpers/credential-id';
import { startServer, type TestServer } from '../helpers/server';
import { kubectlWith, whoami, writeKubeconfig } from './auth-helpers';

jest.setTimeout(60_000);

let dir: string;
let server: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-whoami-'));
  writeFileSync(
    join(dir, 'tokens.csv'),
    ['master-token,alice,alice-uid,"system:masters,team-a"', 'plain-token,bob,bob-uid', ''].join('\n'),
  );
  server = await startServer({ flags: [`--token-auth-file=${join(dir, 'tokens.csv')}`] });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a client certificate: the admin', async () => {
  expect(await whoami(server.kubeconfig)).toEqual({
    username: 'kubernetes-admin',
    groups: ['system:masters', 'system:authenticated'],
    extra: certificateCredentialId(server.credentials.cert),
  });
});

test('a static token', async () => {
  const kubeconfig = writeKubeconfig(server, dir, 'alice', { token: 'master-token' });
  expect(await whoami(kubeconfig)).toEqual({
    username: 'alice',
    uid: 'alice-uid',
    groups: ['system:masters', 'team-a', 'system:authenticated'],
  });
});

test('an unknown bearer token is 401, not anonymous', async () => {
  const kubeconfig = writeKubeconfig(server, dir, 'nobody', { token: 'no-such-token' });
  const result = await kubectlWith(kubeconfig, ['auth', 'whoami', '-o', 'json']);
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('Unauthorized');
  const raw = await fetchAs(server, { authorization: 'Bearer no-such-token' }, '/version');
  expect(raw).toEqual({
    status: 401,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    },
  });
});

test('impersonation of a user, groups, uid and extra by system:masters', async () => {
  const kubeconfig = writeKubeconfig(server, dir, 'alice-as-jane', {
    token: 'master-token',
    as: 'jane',
    'as-groups': ['system:masters', 'devs'],
    'as-uid': 'jane-uid',
    'as-user-extra': { scopes: ['view', 'edit'], 'example.com/team': ['blue'] },
  });
  expect(await whoami(kubeconfig)).toEqual({
    username: 'jane',
    uid: 'jane-uid',
    groups: ['system:masters', 'devs', 'system:authenticated'],
    extra: { scopes: ['view', 'edit'], 'example.com/team': ['blue'] },
  });
});

test('impersonating a service account gives its groups', async () => {
  const kubeconfig = writeKubeconfig(server, dir, 'alice-as-sa', {
    token: 'master-token',
    as: 'system:serviceaccount:default:builder',
  });
  const result = await kubectlWith(kubeconfig, ['get', '--raw', '/version']);
  expect(result.code).toBe(0);
  // The default policy lets every authenticated user (system:basic-user) ask who it is.
  expect(await whoami(kubeconfig)).toEqual({
    username: 'system:serviceaccount:default:builder',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
  });
});

test('impersonation without the impersonate verb is 403', async () => {
  const kubeconfig = writeKubeconfig(server, dir, 'bob-as-root', { token: 'plain-token', as: 'root' });
  const result = await kubectlWith(kubeconfig, ['get', '--raw', '/api/v1/namespaces']);
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain(
    'users "root" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
  );
});

async function fetchAs(
  target: TestServer,
  headers: Record<string, string>,
  path: string,
): Promise<{ status: number; body: unknown }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, target.url), { ca: target.credentials.ca, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

test('--anonymous-auth=false: no credential at all is 401', async () => {
  const closed = await startServer({ flags: ['--anonymous-auth=false'] });
  try {
    expect(await fetchAs(closed, {}, '/version')).toMatchObject({
      status: 401,
      body: { reason: 'Unauthorized', message: 'Unauthorized' },
    });
    expect((await closed.request('GET', '/version')).status).toBe(200);
  } finally {
    await closed.stop();
  }
  expect(await fetchAs(server, {}, '/version')).toMatchObject({ status: 200 });
});

test('an exec credential plugin: its token authenticates, and after a 401 it runs again', async () => {
  const counter = join(dir, 'plugin-runs');
  const script = join(dir, 'credential-plugin.sh');
  // First run hands out a stale token; every later run the good one.
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      `runs=$(cat ${counter} 2>/dev/null || echo 0); runs=$((runs + 1)); echo $runs > ${counter}`,
      'if [ "$runs" = 1 ]; then token=stale-token; else token=master-token; fi',
      'printf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}\' "$token"',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const kubeconfig = writeKubeconfig(server, dir, 'plugin', {
    exec: { apiVersion: 'client.authentication.k8s.io/v1', command: script, interactiveMode: 'Never' },
  });
  // One kubectl process: its first request gets the 401, client-go drops the credential, and
  // the requests after it (kubectl retries discovery) carry the plugin's next answer.
  const listed = await kubectlWith(kubeconfig, ['get', 'namespaces', '-o', 'name']);
  expect(listed.stdout).toContain('namespace/default');
  expect(readFileSync(counter, 'utf8').trim()).toBe('2');
  expect(await whoami(kubeconfig)).toEqual({
    username: 'alice',
    uid: 'alice-uid',
    groups: ['system:masters', 'team-a', 'system:authenticated'],
  });
});
