/**
 * The HTTPS server in-process on a free loopback port: TLS and client certificates, the
 * handler chain's answers, health endpoints, /version, and the shutdown sequence.
 */
import { bootstrapPolicy } from '../../server/authz/rbac/bootstrap-policy';
import { featureGateReader } from '../../server/config/feature-enabled';
import { staticPolicySource } from '../../server/authz/rbac/policy-source';
import { rbacAuthorizer } from '../../server/authz/rbac/rbac-authorizer';
import { RuleResolver } from '../../server/authz/rbac/rule-resolver';
import { serverAuthorizer } from '../../server/authz/server-authorizer';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type CapstanServer } from '../../server/app';
import { DEFAULT_OPTIONS } from '../../server/config/flags';
import { functionCheck, PostStartHook } from '../../server/health/checks';
import { readBody } from '../../server/request/body';
import { issueCa, issueLeaf } from '../../server/pki/certificates';
import { tooManyRequests } from '../../server/status/catalogue';
import { ObjectError } from '../../storage/errors';
import { generatedPki, type Pki } from '../../server/pki/pki';
import { httpsRequest, type ClientIdentity } from '../helpers/https-client';
import { certificateCredentialId } from '../helpers/credential-id';

describe('the HTTPS server', () => {
  let dataDir: string;
  let pki: Pki;
  let server: CapstanServer;
  let baseUrl: string;
  let etcdHealthy = true;
  /** Called when a request reaches /slow. */
  let slowArrived = () => {};
  const controllers = new PostStartHook('start-controllers');
  let otherCaClient: ClientIdentity;
  let plainUser: ClientIdentity;

  const get = (path: string, identity?: ClientIdentity) =>
    httpsRequest({ url: baseUrl + path, caPem: pki.ca.certPem, identity });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-server-'));
    pki = await generatedPki({ dataDir, bindAddress: '127.0.0.1' });
    const otherCa = await issueCa({ commonName: 'someone-else', validDays: 1 });
    otherCaClient = await issueLeaf({
      ca: otherCa,
      subject: 'CN=mallory, O=system:masters',
      usage: 'client',
      validDays: 1,
    });
    plainUser = await issueLeaf({ ca: pki.ca, subject: 'CN=jane, O=dev, O=ops', usage: 'client', validDays: 1 });
    server = createServer({
      options: { ...DEFAULT_OPTIONS, securePort: 0, dataDir, shutdownDelayMs: 300 },
      tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem },
      // RBAC over the default policy, as a whole server has it, without the store behind it.
      authorizer: serverAuthorizer([
        rbacAuthorizer(
          new RuleResolver(staticPolicySource(Object.values(bootstrapPolicy(featureGateReader({}))).flat())),
        ),
      ]),
      health: {
        checks: [
          functionCheck('etcd', () => {
            if (!etcdHealthy) throw new Error('etcd unreachable');
          }),
        ],
        readinessChecks: [functionCheck('informer-sync', () => undefined)],
        postStartHooks: [controllers],
      },
      routes: (app) => {
        app.get('/whoami', (req, res) => {
          res.json(req.user);
        });
        app.get('/slow', async (_req, res) => {
          slowArrived();
          // A request still in flight when shutdown begins, for 600 ms.
          await new Promise((resolve) => setTimeout(resolve, 600));
          res.json({ finished: true });
        });
        app.get('/busy', () => {
          throw tooManyRequests('storage is (re)initializing', 3);
        });
        app.get('/missing', async () => {
          throw new ObjectError('NotFound', 'deployments.apps "web" not found', { name: 'web' });
        });
        app.post('/echo-size', async (req, res) => {
          const body = await readBody(req, { limitBytes: 1024 });
          res.json({ bytes: body.length });
        });
        return { notFoundAsStatus: (name) => name === 'apps', listedPaths: () => ['/whoami'] };
      },
    });
    baseUrl = (await server.listen()).url;
  });

  afterAll(async () => {
    await server.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('health', () => {
    it('fails a post-start hook until it finishes', async () => {
      const ready = await get('/readyz', pki.admin);
      expect(ready.status).toBe(500);
      expect(ready.body).toContain('[-]poststarthook/start-controllers failed: reason withheld\n');
      expect((await get('/readyz/poststarthook/start-controllers', pki.admin)).body).toBe(
        'internal server error: not finished\n',
      );
      controllers.finish();
      expect((await get('/readyz', pki.admin)).status).toBe(200);
    });

    it('lists every check with verbose', async () => {
      expect((await get('/livez?verbose', pki.admin)).body).toBe(
        '[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/start-controllers ok\nlivez check passed\n',
      );
      const ready = await get('/readyz?verbose', pki.admin);
      expect(ready.status).toBe(200);
      expect(ready.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(ready.body).toBe(
        '[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]informer-sync ok\n[+]poststarthook/start-controllers ok\n[+]shutdown ok\nreadyz check passed\n',
      );
      expect((await get('/healthz?verbose', pki.admin)).body).toBe(
        '[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/start-controllers ok\nhealthz check passed\n',
      );
      expect((await get('/readyz', pki.admin)).body).toBe('ok');
    });

    it('withholds reasons in the list and shows them on the check path', async () => {
      etcdHealthy = false;
      try {
        const ready = await get('/readyz', pki.admin);
        expect(ready.status).toBe(500);
        expect(ready.body).toBe(
          '[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[+]informer-sync ok\n[+]poststarthook/start-controllers ok\n[+]shutdown ok\nreadyz check failed\n',
        );
        const etcd = await get('/readyz/etcd', pki.admin);
        expect(etcd.status).toBe(500);
        expect(etcd.body).toBe('internal server error: etcd unreachable\n');
        const excluded = await get('/livez?verbose&exclude=etcd&exclude=nope', pki.admin);
        expect(excluded.status).toBe(200);
        expect(excluded.body).toBe(
          '[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]poststarthook/start-controllers ok\n' +
            'warn: some health checks cannot be excluded: no matches for "nope"\nlivez check passed\n',
        );
      } finally {
        etcdHealthy = true;
      }
    });

    it('serves each check on its own path, hooks included', async () => {
      for (const path of [
        '/livez/ping',
        '/readyz/informer-sync',
        '/healthz/log',
        '/readyz/poststarthook/start-controllers',
      ]) {
        const reply = await get(path, pki.admin);
        expect([path, reply.status, reply.body]).toEqual([path, 200, 'ok']);
      }
      expect((await get('/livez/informer-sync', pki.admin)).status).toBe(404);
    });
  });

  describe('authentication and authorization', () => {
    it('serves /version to the admin certificate', async () => {
      const reply = await get('/version', pki.admin);
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body)).toMatchObject({
        major: '1',
        minor: '34',
        gitVersion: expect.stringMatching(/^v1\.34\.\d+/),
      });
      expect(reply.headers['cache-control']).toBe('no-cache, private');
    });

    it('names the user by CN and groups by O, plus system:authenticated', async () => {
      // jane may not reach /whoami through the default authorizers, so ask as the admin for
      // the admin, and check jane's identity in the Forbidden message.
      const admin = await get('/whoami', pki.admin);
      expect(JSON.parse(admin.body)).toEqual({
        name: 'kubernetes-admin',
        groups: ['system:masters', 'system:authenticated'],
        extra: certificateCredentialId(pki.admin.certPem),
      });
      const jane = await get('/api/v1/namespaces/default/pods', plainUser);
      expect(jane.status).toBe(403);
      expect(JSON.parse(jane.body).message).toBe(
        'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"',
      );
    });

    it('treats a request without a certificate as anonymous: 403 Status for resources', async () => {
      const reply = await get('/api/v1/pods');
      expect(reply.status).toBe(403);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(JSON.parse(reply.body)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope',
        reason: 'Forbidden',
        details: { kind: 'pods' },
        code: 403,
      });
    });

    it('lets anonymous requests read the public health and version paths only', async () => {
      expect((await get('/livez')).status).toBe(200);
      expect((await get('/readyz')).status).toBe(200);
      expect((await get('/healthz')).status).toBe(200);
      expect((await get('/version')).status).toBe(200);
      const check = await get('/livez/ping');
      expect(check.status).toBe(403);
      expect(JSON.parse(check.body).message).toBe('forbidden: User "system:anonymous" cannot get path "/livez/ping"');
    });

    it('rejects a certificate from another CA with 401', async () => {
      const reply = await get('/version', otherCaClient);
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.body)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    });
  });

  describe('routing', () => {
    // As kube-apiserver 1.34.4 answers: its API web services a NotFound Status, Go's mux the rest.
    it.each(['/api/x', '/api/v1/x/y', '/apis/apps/v2', '/apis/apps/v1/x', '/version/x'])(
      'answers an unknown path below an API web service (%s) with a NotFound Status',
      async (path) => {
        const reply = await get(path, pki.admin);
        expect(reply.status).toBe(404);
        const status = { reason: 'NotFound', message: 'the server could not find the requested resource', code: 404 };
        expect(JSON.parse(reply.body)).toMatchObject({ kind: 'Status', ...status, details: {} });
      },
    );

    it.each(['/foo', '/apis/nothing.example.com/v1/things', '/apis/nothing.example.com', '/metrics/x', '/logs/x'])(
      "answers an unknown path outside them (%s) with Go's plain-text 404",
      async (path) => {
        const reply = await get(path, pki.admin);
        expect(reply.status).toBe(404);
        expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(reply.body).toBe('404 page not found\n');
      },
    );

    it("refuses /version to any method but GET, and serves /metrics to any, as the reference's routes do", async () => {
      const call = (method: string, path: string) =>
        httpsRequest({ url: baseUrl + path, caPem: pki.ca.certPem, identity: pki.admin, method });
      const refused = await call('POST', '/version');
      expect(refused.status).toBe(405);
      expect(JSON.parse(refused.body)).toMatchObject({ reason: 'MethodNotAllowed', details: {} });
      expect((await call('HEAD', '/version')).status).toBe(405);
      expect((await call('GET', '/version')).status).toBe(200);
      const metrics = await call('POST', '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).toContain('# TYPE');
    });

    it('answers an unknown OpenAPI v3 path with an empty 404', async () => {
      const reply = await get('/openapi/v3/apis/nothing.example.com/v1', pki.admin);
      expect(reply.status).toBe(404);
      expect(reply.body).toBe('');
    });

    it('answers a resource path too short to resolve with a BadRequest Status (the reference: a plain-text 500)', async () => {
      const reply = await get('/api/v1/watch', pki.admin);
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.body)).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        message: 'unable to determine kind and namespace from url',
      });
    });

    it.each([
      ['/version?timeout=3m', 200],
      ['/version?timeout=0s', 200],
      ['/version?timeout=', 200],
    ])('GET %s → %d', async (path, status) => {
      expect((await get(path, pki.admin)).status).toBe(status);
    });

    it('rejects an invalid timeout with 400', async () => {
      const reply = await get('/version?timeout=invalid', pki.admin);
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.body)).toMatchObject({
        reason: 'BadRequest',
        message: 'invalid timeout specified in the request URL - time: invalid duration "invalid"',
      });
    });

    it('turns errors thrown by handlers into Status responses, with Retry-After', async () => {
      const busy = await get('/busy', pki.admin);
      expect(busy.status).toBe(429);
      expect(busy.headers['retry-after']).toBe('3');
      expect(JSON.parse(busy.body)).toMatchObject({ reason: 'TooManyRequests', details: { retryAfterSeconds: 3 } });
      const missing = await get('/missing', pki.admin);
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body)).toMatchObject({
        reason: 'NotFound',
        message: 'deployments.apps "web" not found',
        details: { name: 'web' },
      });
    });

    it('limits bodies read by handlers with 413', async () => {
      const small = await httpsRequest({
        url: `${baseUrl}/echo-size`,
        caPem: pki.ca.certPem,
        identity: pki.admin,
        method: 'POST',
        body: 'x'.repeat(1000),
      });
      expect(JSON.parse(small.body)).toEqual({ bytes: 1000 });
      const large = await httpsRequest({
        url: `${baseUrl}/echo-size`,
        caPem: pki.ca.certPem,
        identity: pki.admin,
        method: 'POST',
        body: 'x'.repeat(5000),
      });
      expect(large.status).toBe(413);
      expect(JSON.parse(large.body)).toMatchObject({
        reason: 'RequestEntityTooLarge',
        message: 'Request entity too large: limit is 1024',
      });
    });
  });

  it('lets /livez ignore unfinished post-start hooks during the grace period, but not /readyz', async () => {
    const graced = createServer({
      options: { ...DEFAULT_OPTIONS, securePort: 0, dataDir, livezGracePeriodMs: 60_000 },
      tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem },
      health: { postStartHooks: [new PostStartHook('slow')] },
    });
    const { url } = await graced.listen();
    try {
      const ask = (path: string) => httpsRequest({ url: url + path, caPem: pki.ca.certPem, identity: pki.admin });
      expect((await ask('/livez')).status).toBe(200);
      expect((await ask('/readyz')).status).toBe(500);
    } finally {
      await graced.shutdown();
    }
  });

  // Last: it stops the server.
  it('fails readiness at once on shutdown, keeps serving for the delay, then closes once requests in flight finish', async () => {
    const started = Date.now();
    const arrived = new Promise<void>((resolve) => (slowArrived = resolve));
    const slow = get('/slow', pki.admin);
    await arrived;
    const closed = server.shutdown();
    const ready = await get('/readyz?verbose', pki.admin);
    expect(ready.status).toBe(500);
    expect(ready.body).toContain('[-]shutdown failed: reason withheld\n');
    expect((await get('/livez', pki.admin)).status).toBe(200);
    expect((await get('/readyz/shutdown', pki.admin)).body).toBe('internal server error: process is shutting down\n');
    await closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    // Closing waited for the request in flight.
    expect(JSON.parse((await slow).body)).toEqual({ finished: true });
    await expect(get('/livez', pki.admin)).rejects.toThrow(/ECONNREFUSED/);
  });
});
