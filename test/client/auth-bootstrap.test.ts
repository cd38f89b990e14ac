/**
 * Bootstrap tokens: a kube-system Secret makes `<id>.<secret>` a bearer token for
 * `system:bootstrap:<id>` until its expiration, after which it is 401 and the tokencleaner
 * deletes the Secret; meanwhile the bootstrapsigner signs `kube-public/cluster-info` with it
 * (checked here with an HMAC the test computes itself), and drops the signature at expiry.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../helpers/server';
import { kubectlWith, whoami, writeKubeconfig } from './auth-helpers';
import { waitUntil } from '../helpers/wait-for';

jest.setTimeout(90_000);

let server: TestServer;
const ID = 'abcdef';
const SECRET = '0123456789abcdef';
const TOKEN = `${ID}.${SECRET}`;
const KUBECONFIG_CONTENT =
  'apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    server: https://10.0.0.1:6443\n';

beforeAll(async () => {
  server = await startServer({ flags: ['--enable-bootstrap-token-auth'] });
});

afterAll(async () => {
  await server?.stop();
});

function statusWith(token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/version', server.url),
      { ca: server.credentials.ca, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function kubectlOk(args: readonly string[], input?: string): Promise<string> {
  const result = await server.kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

function expectedSignature(content: string, id: string, token: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: id })).toString('base64url');
  const payload = Buffer.from(content).toString('base64url');
  const mac = createHmac('sha256', token).update(`${header}.${payload}`).digest('base64url');
  return `${header}..${mac}`;
}

test('authenticates until expiry, signs cluster-info, then is refused, unsigned and cleaned up', async () => {
  const expiration = new Date(Date.now() + 20_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  await kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cluster-info', namespace: 'kube-public' },
      data: { kubeconfig: KUBECONFIG_CONTENT },
    }),
  );
  await kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'bootstrap.kubernetes.io/token',
      metadata: { name: `bootstrap-token-${ID}`, namespace: 'kube-system' },
      stringData: {
        'token-id': ID,
        'token-secret': SECRET,
        expiration,
        'usage-bootstrap-authentication': 'true',
        'usage-bootstrap-signing': 'true',
        'auth-extra-groups': 'system:bootstrappers:workers,system:bootstrappers:workers',
      },
    }),
  );

  expect(await statusWith(TOKEN)).toBe(200);
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bootstrap-whoami-'));
  const kubeconfig = writeKubeconfig(server, dir, 'bootstrap', { token: TOKEN });
  expect(await whoami(kubeconfig)).toEqual({
    username: `system:bootstrap:${ID}`,
    groups: ['system:bootstrappers', 'system:bootstrappers:workers', 'system:authenticated'],
  });
  expect(await statusWith(`${ID}.ffffffffffffffff`)).toBe(401);
  const review = JSON.parse(
    await kubectlOk(
      ['create', '--raw', '/apis/authentication.k8s.io/v1/tokenreviews', '-f', '-'],
      JSON.stringify({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token: TOKEN },
      }),
    ),
  ) as { status: unknown };
  expect(review.status).toEqual({
    authenticated: true,
    user: {
      username: `system:bootstrap:${ID}`,
      groups: ['system:bootstrappers', 'system:bootstrappers:workers', 'system:authenticated'],
    },
    audiences: ['https://kubernetes.default.svc.cluster.local'],
  });

  const signature = async () => {
    const map = JSON.parse(
      await kubectlOk(['get', 'configmap', 'cluster-info', '-n', 'kube-public', '-o', 'json']),
    ) as { data: Record<string, string> };
    return map.data[`jws-kubeconfig-${ID}`];
  };
  await waitUntil('the signature', async () => (await signature()) !== undefined, 30_000, 250);
  expect(await signature()).toBe(expectedSignature(KUBECONFIG_CONTENT, ID, TOKEN));

  await waitUntil('expiry', async () => (await statusWith(TOKEN)) === 401, 40_000, 250);
  const expired = await kubectlWith(kubeconfig, ['auth', 'whoami', '-o', 'json']);
  expect(expired.code).not.toBe(0);
  expect(expired.stderr).toContain('Unauthorized');
  rmSync(dir, { recursive: true, force: true });
  await waitUntil('the signature to go', async () => (await signature()) === undefined, 30_000, 250);
  await waitUntil(
    'the tokencleaner',
    async () => (await server.kubectl(['get', 'secret', `bootstrap-token-${ID}`, '-n', 'kube-system'])).code !== 0,
    30_000,
    250,
  );
});
