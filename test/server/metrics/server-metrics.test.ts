/**
 * The stages wired into the real server (TLS, client certificates, the whole chain): `/metrics`
 * for system:masters only, 429 for other users over the limit while masters pass, what a
 * timed-out write did afterwards, and the flags that set the limits and the timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { serverAuthorizer } from '../../../server/authz/server-authorizer';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type CapstanServer } from '../../../server/app';
import { DEFAULT_OPTIONS, parseFlags } from '../../../server/config/flags';
import { ALLOW, NO_OPINION } from '../../../server/authz/types';
import { issueLeaf } from '../../../server/pki/certificates';
import { generatedPki, type Pki } from '../../../server/pki/pki';
import { httpsRequest, type ClientIdentity } from '../../helpers/https-client';
import { retryUntil } from '../../helpers/wait-for';
import { finishRequest } from '../../../server/handlers/post-timeout';

describe('the server with metrics and limits', () => {
  let dataDir: string;
  let pki: Pki;
  let server: CapstanServer;
  let baseUrl: string;
  let jane: ClientIdentity;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));

  const get = (path: string, identity?: ClientIdentity) =>
    httpsRequest({ url: baseUrl + path, caPem: pki.ca.certPem, identity });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-metrics-server-'));
    pki = await generatedPki({ dataDir, bindAddress: '127.0.0.1' });
    jane = await issueLeaf({ ca: pki.ca, subject: 'CN=jane, O=dev', usage: 'client', validDays: 1 });
    server = createServer({
      options: { ...DEFAULT_OPTIONS, securePort: 0, dataDir, maxRequestsInflight: 1, requestTimeoutMs: 5_000 },
      tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem },
      // Jane may read configmaps (what RBAC would grant), so her requests reach the handler and stay in flight.
      authorizer: serverAuthorizer([
        { authorize: ({ user, resource }) => (user.name === 'jane' && resource === 'configmaps' ? ALLOW : NO_OPINION) },
      ]),
      routes: (app) => {
        app.get('/api/v1/namespaces/a/configmaps/x', async (_req, res) => {
          await gate;
          res.json({});
        });
        // A create whose write takes longer than the request's timeout.
        app.post('/api/v1/namespaces/a/configmaps', async (req, res) => {
          req.resume();
          res.json(await finishRequest(req, new Promise((resolve) => setTimeout(() => resolve({}), 400))));
        });
      },
    });
    baseUrl = (await server.listen()).url;
  });
  afterAll(async () => {
    release();
    await server.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves /metrics to system:masters only', async () => {
    const admin = await get('/metrics', pki.admin);
    expect(admin.status).toBe(200);
    expect(admin.body).toContain('# TYPE apiserver_request_total counter');
    expect((await get('/metrics', jane)).status).toBe(403);
    expect((await get('/metrics')).status).toBe(403);
  });

  it('answers 429 to a user over --max-requests-inflight while masters still pass', async () => {
    const held = get('/api/v1/namespaces/a/configmaps/x', jane);
    const rejected = await retryUntil(
      () => get('/api/v1/namespaces/a/configmaps/y', jane),
      (answer) => answer.status === 429,
      1_000,
      20,
    );
    expect(rejected.status).toBe(429);
    expect(rejected.headers['retry-after']).toBe('1');
    expect((await get('/api/v1/namespaces/a/configmaps/z', pki.admin)).status).toBe(404);
    release();
    expect((await held).status).toBe(200);
    const text = (await get('/metrics', pki.admin)).body;
    expect(text).toMatch(
      /apiserver_request_terminations_total\{verb="GET",[^}]*resource="configmaps"[^}]*code="429"\} [1-9]/,
    );
  });

  it('counts and logs what a timed-out write did afterwards', async () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const reply = await httpsRequest({
        url: `${baseUrl}/api/v1/namespaces/a/configmaps?timeout=100ms`,
        method: 'POST',
        body: '{}',
        caPem: pki.ca.certPem,
        identity: pki.admin,
      });
      expect(reply.status).toBe(504);
      const text = await retryUntil(
        async () => (await get('/metrics', pki.admin)).body,
        (body) => body.includes('apiserver_request_post_timeout_total{source="timeout-handler",status="ok"} 1'),
        3_000,
        50,
      );
      expect(text).toContain('apiserver_request_post_timeout_total{source="rest-handler",status="ok"} 1');
      const lines = logged.mock.calls
        .map((call) => String(call[0]))
        .filter((line) => line.startsWith('post-timeout'))
        .sort();
      expect(lines).toEqual([
        expect.stringMatching(
          /^post-timeout activity \(rest-handler\): POST \/api\/v1\/namespaces\/a\/configmaps: the write finished/,
        ),
        expect.stringMatching(
          /^post-timeout activity \(timeout-handler\): POST \/api\/v1\/namespaces\/a\/configmaps ended/,
        ),
      ]);
    } finally {
      logged.mockRestore();
    }
  });

  it('takes the limits and the timeout from flags', () => {
    const parsed = parseFlags([
      '--max-requests-inflight=10',
      '--max-mutating-requests-inflight',
      '0',
      '--request-timeout=30s',
    ]);
    expect(parsed).toEqual({
      options: expect.objectContaining({
        maxRequestsInflight: 10,
        maxMutatingRequestsInflight: 0,
        requestTimeoutMs: 30_000,
      }),
      warnings: [],
    });
    expect(() => parseFlags(['--max-requests-inflight=-1'])).toThrow(
      'invalid argument "-1" for "--max-requests-inflight" flag',
    );
  });
});
