/**
 * A token webhook served for real over HTTPS by the test: the server sends it a TokenReview
 * (v1beta1 by default, v1 by flag), believes its answer, keeps it for the cache TTL, and a
 * token it refuses is 401.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../helpers/server';
import { sendJson, startHttpsFixture, type HttpsFixture } from '../server/authn/https-fixture';
import { kubectlWith, whoami, writeKubeconfig } from './auth-helpers';

jest.setTimeout(60_000);

let dir: string;
let webhook: HttpsFixture;
const received: { apiVersion: string; spec: { token: string; audiences?: string[] } }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-webhook-'));
  webhook = await startHttpsFixture((req, res, body) => {
    const review = JSON.parse(body) as (typeof received)[number];
    received.push(review);
    const ok = review.spec.token === 'webhook-token' || review.spec.token === 'huge-answer-token';
    // Past the server's 1 MiB bound on a webhook answer.
    const padding = review.spec.token === 'huge-answer-token' ? { 'example.com/padding': ['x'.repeat(2 << 20)] } : {};
    sendJson(res, 200, {
      apiVersion: review.apiVersion,
      kind: 'TokenReview',
      status: ok
        ? {
            authenticated: true,
            user: {
              username: 'dave',
              uid: 'dave-uid',
              groups: ['system:masters', 'remote'],
              extra: { 'example.com/idp': ['corp'], ...padding },
            },
          }
        : { authenticated: false, error: 'no such token' },
    });
  });
  writeFileSync(
    join(dir, 'webhook.kubeconfig'),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'hook',
          cluster: {
            server: `${webhook.url}/authenticate`,
            'certificate-authority-data': Buffer.from(webhook.caPem).toString('base64'),
          },
        },
      ],
      users: [{ name: 'apiserver', user: { token: 'secret-towards-the-webhook' } }],
      contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }],
      'current-context': 'hook',
    }),
  );
});

afterAll(async () => {
  await webhook?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function withServer(flags: string[], run: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startServer({
    flags: [`--authentication-token-webhook-config-file=${join(dir, 'webhook.kubeconfig')}`, ...flags],
  });
  try {
    await run(server);
  } finally {
    await server.stop();
  }
}

test('the webhook names the user; its answers are cached; refused tokens are 401', async () => {
  await withServer([], async (server) => {
    received.length = 0;
    const kubeconfig = writeKubeconfig(server, dir, 'dave', { token: 'webhook-token' });
    const expected = {
      username: 'dave',
      uid: 'dave-uid',
      groups: ['system:masters', 'remote', 'system:authenticated'],
      extra: { 'example.com/idp': ['corp'] },
    };
    expect(await whoami(kubeconfig)).toEqual(expected);
    expect(await whoami(kubeconfig)).toEqual(expected);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      apiVersion: 'authentication.k8s.io/v1beta1',
      kind: 'TokenReview',
      spec: { token: 'webhook-token', audiences: ['https://kubernetes.default.svc.cluster.local'] },
    });

    const refused = await kubectlWith(writeKubeconfig(server, dir, 'eve', { token: 'bad-token' }), ['auth', 'whoami']);
    expect(refused.stderr).toContain('Unauthorized');
  });
});

test('an answer past 1 MiB is not read to its end nor believed: the token is 401', async () => {
  await withServer([], async (server) => {
    const refused = await kubectlWith(writeKubeconfig(server, dir, 'dave', { token: 'huge-answer-token' }), [
      'auth',
      'whoami',
    ]);
    expect(refused.stderr).toContain('Unauthorized');
  });
});

test('--authentication-token-webhook-version=v1 and a zero cache TTL', async () => {
  await withServer(
    ['--authentication-token-webhook-version=v1', '--authentication-token-webhook-cache-ttl=0s'],
    async (server) => {
      received.length = 0;
      const kubeconfig = writeKubeconfig(server, dir, 'dave', { token: 'webhook-token' });
      await whoami(kubeconfig);
      await whoami(kubeconfig);
      expect(received.map((review) => review.apiVersion)).toEqual([
        'authentication.k8s.io/v1',
        'authentication.k8s.io/v1',
      ]);
    },
  );
});
