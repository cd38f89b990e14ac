/**
 * A write whose request timed out before it reached storage is not made, as in the reference,
 * whose storage calls fail on the request's expired context: the client was answered 504, and
 * the create, update or delete it asked for does not happen afterwards. A validating webhook
 * served by the test holds each write in admission past the request's `timeout`. The server does
 * not wait for it past the deadline either (it tells it the time left, `?timeout=`), and its
 * failurePolicy, Ignore, lets the write go on to storage, which is what refuses it then; what the
 * server did afterwards shows in `apiserver_request_post_timeout_total` and its log.
 */
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { startHttpsFixture, type HttpsFixture } from '../authn/https-fixture';
import { retryUntil } from '../../helpers/wait-for';
import type { HttpResult } from '../../helpers/server';

const NAMESPACE = 'late';
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const JSON_BODY = { 'Content-Type': 'application/json' };

describe('a write whose request timed out', () => {
  let server: InProcessServer;
  let webhookServer: HttpsFixture;
  /** How long the webhook holds each review before it allows it. */
  let delayMs = 0;
  /** The path and query each review was posted to, by `<operation> <name>`, as it arrived. */
  const posted = new Map<string, string>();
  let logged: jest.SpyInstance;

  beforeAll(async () => {
    webhookServer = await startHttpsFixture((req, res, body) => {
      const review = JSON.parse(body) as { request: { uid: string; name: string; operation: string } };
      posted.set(`${review.request.operation} ${review.request.name}`, req.url ?? '');
      const answer = () => {
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: review.request.uid, allowed: true },
          }),
        );
      };
      setTimeout(answer, delayMs).unref();
    });
    server = await startInProcessServer();
    expect((await server.kubectl(['create', 'namespace', NAMESPACE])).code).toBe(0);
    const caBundle = Buffer.from(webhookServer.caPem).toString('base64');
    const applied = await server.kubectl(['apply', '-f', '-'], {
      input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: late}
webhooks:
- name: late.example.com
  clientConfig: {url: "${webhookServer.url}/late", caBundle: ${caBundle}}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE, DELETE], resources: [configmaps]}
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods/eviction, pods/binding]}
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ${NAMESPACE}}}
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 5
  failurePolicy: Ignore
`,
    });
    expect(applied.code).toBe(0);
    // The configuration reaches admission through its informer: wait until the webhook is called.
    let probes = 0;
    await retryUntil(
      () => create(`probe-${++probes}`),
      () => posted.has(`CREATE probe-${probes}`),
      10_000,
      100,
    );
    logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  afterAll(async () => {
    logged?.mockRestore();
    await server?.stop();
    await webhookServer?.close();
  });

  function create(name: string, query = '') {
    return server.request('POST', `${CONFIGMAPS}${query}`, {
      body: JSON.stringify({ metadata: { name }, data: { value: '1' } }),
      headers: JSON_BODY,
    });
  }

  /** The count of rest-layer work that ended in an error after its request's timeout. */
  async function restErrors(): Promise<number> {
    const text = (await server.request('GET', '/metrics')).body;
    const line = /^apiserver_request_post_timeout_total\{source="rest-handler",status="error"\} (\d+)$/m.exec(text);
    return line ? Number(line[1]) : 0;
  }

  /**
   * Sends a write bound to time out (`send`), expects its 504, and waits until the server has
   * reported its work refused after the timeout, once.
   */
  async function timedOutWrite(send: () => Promise<HttpResult>): Promise<HttpResult> {
    const before = await restErrors();
    const reply = await send();
    expect(reply.status).toBe(504);
    await retryUntil(restErrors, (errors) => errors > before, 5_000, 50);
    expect(await restErrors()).toBe(before + 1);
    return reply;
  }

  const postTimeoutLines = () =>
    logged.mock.calls.map((call) => String(call[0])).filter((line) => line.startsWith('post-timeout activity'));

  it('is answered 504, and the create it asked for is not stored', async () => {
    delayMs = 600;
    const reply = await timedOutWrite(() => create('c1', '?timeout=200ms'));
    expect(reply.json()).toMatchObject({
      reason: 'Timeout',
      message: 'Timeout: request did not complete within the allotted timeout',
    });
    expect(posted.has('CREATE c1')).toBe(true);
    expect((await server.request('GET', `${CONFIGMAPS}/c1`)).status).toBe(404);
    expect(postTimeoutLines()).toContainEqual(
      expect.stringMatching(
        /^post-timeout activity \(rest-handler\): POST \/api\/v1\/namespaces\/late\/configmaps: the write finished \d+\.\d{3}s after its timeout: error: context deadline exceeded$/,
      ),
    );
  });

  it('leaves the object as it was when an update or a delete timed out', async () => {
    delayMs = 0;
    const created = await create('c2');
    expect(created.status).toBe(201);
    const before = created.json() as { metadata: { resourceVersion: string } };

    delayMs = 600;
    await timedOutWrite(() =>
      server.request('PUT', `${CONFIGMAPS}/c2?timeout=200ms`, {
        body: JSON.stringify({ metadata: { name: 'c2' }, data: { value: '2' } }),
        headers: JSON_BODY,
      }),
    );
    await timedOutWrite(() => server.request('DELETE', `${CONFIGMAPS}/c2?timeout=200ms`));
    expect([posted.has('UPDATE c2'), posted.has('DELETE c2')]).toEqual([true, true]);

    const after = await server.request('GET', `${CONFIGMAPS}/c2`);
    expect(after.status).toBe(200);
    expect(after.json()).toMatchObject({ metadata: before.metadata, data: { value: '1' } });
  });

  it("cuts a webhook at the request's deadline, telling it the time it has left", async () => {
    delayMs = 3_000;
    const sent = performance.now();
    await timedOutWrite(() => create('c4', '?timeout=1500ms'));
    // The webhook's own timeout is 5 s and it answers after 3: the call ended at the deadline.
    expect(performance.now() - sent).toBeLessThan(2_800);
    expect(posted.get('CREATE c4')).toBe('/late?timeout=2s');
    expect((await server.request('GET', `${CONFIGMAPS}/c4`)).status).toBe(404);
  });

  it('leaves a pod unbound and in place when a binding or an eviction timed out', async () => {
    delayMs = 0;
    const pod = {
      metadata: { name: 'p1' },
      spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
    };
    // The namespace's default service account, which admission wants (no controller makes it here).
    const account = await server.request('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, {
      body: JSON.stringify({ metadata: { name: 'default' } }),
      headers: JSON_BODY,
    });
    expect([201, 409]).toContain(account.status);
    const created = await server.request('POST', `/api/v1/namespaces/${NAMESPACE}/pods`, {
      body: JSON.stringify(pod),
      headers: JSON_BODY,
    });
    expect(created.status).toBe(201);
    const podPath = `/api/v1/namespaces/${NAMESPACE}/pods/p1`;
    const before = created.json() as { metadata: { resourceVersion: string } };

    delayMs = 600;
    const binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'p1' },
      target: { kind: 'Node', name: 'n1' },
    };
    await timedOutWrite(() =>
      server.request('POST', `${podPath}/binding?timeout=200ms`, { body: JSON.stringify(binding), headers: JSON_BODY }),
    );
    const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p1' } };
    await timedOutWrite(() =>
      server.request('POST', `${podPath}/eviction?timeout=200ms`, {
        body: JSON.stringify(eviction),
        headers: JSON_BODY,
      }),
    );

    const after = await server.request('GET', podPath);
    expect(after.status).toBe(200);
    expect(after.json()).toMatchObject({ metadata: { resourceVersion: before.metadata.resourceVersion } });
    expect((after.json() as { spec: { nodeName?: string } }).spec.nodeName).toBeUndefined();
  });

  it('is made when the same slow admission finishes within the timeout', async () => {
    delayMs = 300;
    const errors = await restErrors();
    const reply = await create('c3', '?timeout=10s');
    expect(reply.status).toBe(201);
    expect((await server.request('GET', `${CONFIGMAPS}/c3`)).status).toBe(200);
    expect(posted.get('CREATE c3')).toBe('/late?timeout=5s');
    expect(await restErrors()).toBe(errors);
  });
});
