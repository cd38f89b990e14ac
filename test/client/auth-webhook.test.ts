/**
 * A token webhook served for real over HTTPS by the test: the server sends it a TokenReview
 * (v1beta1 by default, v1 by flag), believes its answer, keeps it for the cache TTL, and a
 * token it refuses is 401.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsCall, startServer, type TestServer } from '../helpers/server';
import { resetConnection, sendJson, startHttpsFixture, type HttpsFixture } from '../server/authn/https-fixture';
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
    // `flaky-<status>-<times>`: answered so, or reset, that many times before it is known.
    const [flaky, failure, times] = review.spec.token.split('-');
    if (flaky === 'flaky' && received.filter((seen) => seen.spec.token === review.spec.token).length <= Number(times)) {
      if (failure === 'reset') resetConnection(req);
      else res.writeHead(Number(failure)).end('not now');
      return;
    }
    const ok = ['webhook-token', 'huge-answer-token', 'slow-token'].includes(review.spec.token) || flaky === 'flaky';
    // Past the server's 1 MiB bound on a webhook answer.
    const padding = review.spec.token === 'huge-answer-token' ? { 'example.com/padding': ['x'.repeat(2 << 20)] } : {};
    const answer = {
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
    };
    setTimeout(() => sendJson(res, 200, answer), review.spec.token === 'slow-token' ? 500 : 0);
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

test('an answer that may pass is asked for again; requests with a token being looked up wait for it', async () => {
  await withServer([], async (server) => {
    received.length = 0;
    const reviewsOf = (token: string) => received.filter((review) => review.spec.token === token).length;
    const whoIs = async (token: string) => {
      const answer = await httpsCall(
        new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server.url),
        { ca: server.credentials.ca },
        'POST',
        {
          body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        },
      );
      return answer.status === 201
        ? answer.json<{ status: { userInfo: { username: string } } }>().status.userInfo.username
        : answer.status;
    };
    for (const token of ['flaky-500-2', 'flaky-429-1', 'flaky-504-1', 'flaky-reset-1']) {
      expect(await whoIs(token)).toBe('dave');
      expect(reviewsOf(token)).toBe(Number(token.split('-')[2]) + 1);
    }
    // Five attempts, then the failure is the answer, and it is not kept.
    expect(await whoIs('flaky-500-5')).toBe(401);
    expect(reviewsOf('flaky-500-5')).toBe(5);
    expect(await whoIs('flaky-500-5')).toBe('dave');
    // An answer that will not pass by asking again is final.
    expect(await whoIs('flaky-403-1')).toBe(401);
    expect(reviewsOf('flaky-403-1')).toBe(1);

    expect(await Promise.all(Array.from({ length: 4 }, () => whoIs('slow-token')))).toEqual([
      'dave',
      'dave',
      'dave',
      'dave',
    ]);
    expect(reviewsOf('slow-token')).toBe(1);
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
