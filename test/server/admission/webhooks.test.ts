/**
 * Admission webhooks served for real by the test (HTTPS on loopback, a certificate of the
 * test's own CA given as caBundle): a mutating webhook's JSON patch lands and its warning
 * reaches kubectl; a validating one refuses with its message; a webhook that times out fails
 * the write or is skipped as its failurePolicy says; a dry run is refused by a webhook with
 * side effects; a connection (CONNECT pods/attach) is admitted with its options object before
 * anything is looked up; a patched object is defaulted (a custom resource pruned) as the
 * reference decodes it; a configuration whose matchCondition does not compile is refused;
 * webhooks and MutatingAdmissionPolicies reinvoke each other (one pass more for both).
 * Messages are the reference's (kube-apiserver v1.34.4's webhook errors).
 */
import { parse as parseYaml } from 'yaml';
import type { KubeObject } from '../../../api/objects';
import type { TestServer } from '../../helpers/server';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { startHttpsFixture, type HttpsFixture } from '../authn/https-fixture';
import { retryUntil } from '../../helpers/wait-for';

interface Review {
  request: {
    uid: string;
    operation: string;
    name: string;
    namespace: string;
    subResource?: string;
    dryRun: boolean;
    userInfo: { username: string };
    options?: unknown;
    object: {
      kind?: string;
      metadata: { labels?: Record<string, string> };
      data?: Record<string, string>;
      stdin?: boolean;
      container?: string;
    };
  };
}

describe('admission webhooks', () => {
  // In process, so that a configuration the API now refuses can be put straight into storage.
  let server: InProcessServer;
  let webhookServer: HttpsFixture;
  let base: string;
  let caBundle: string;
  const received: Review[] = [];

  beforeAll(async () => {
    webhookServer = await startHttpsFixture((req, res, body) => {
      const review = JSON.parse(body) as Review;
      received.push(review);
      const { uid, object } = review.request;
      const answer = (response: object) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid, ...response },
          }),
        );
      };
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      if (path === '/mutate') {
        const patch = object.metadata.labels
          ? [{ op: 'add', path: '/metadata/labels/mutated', value: 'true' }]
          : [{ op: 'add', path: '/metadata/labels', value: { mutated: 'true' } }];
        answer({
          allowed: true,
          patchType: 'JSONPatch',
          patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
          warnings: ['mutated by the test webhook'],
        });
      } else if (path === '/label-a' || path === '/label-b') {
        // Adds its label when missing: a change the first time, none after.
        const label = path.slice('/label-'.length);
        const labels = object.metadata.labels ?? {};
        const patch =
          label in labels
            ? []
            : [
                {
                  op: 'add',
                  path: '/metadata/labels',
                  value: { ...labels, [label]: String(Object.keys(labels).length) },
                },
              ];
        answer({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
      } else if (path === '/hpa') {
        answer({
          allowed: true,
          patchType: 'JSONPatch',
          patch: Buffer.from(JSON.stringify([{ op: 'replace', path: '/spec/maxReplicas', value: 7 }])).toString(
            'base64',
          ),
        });
      } else if (path === '/deny-attach') {
        const attach =
          review.request.operation === 'CONNECT' &&
          object.kind === 'PodAttachOptions' &&
          object.stdin === true &&
          object.container === 'c1';
        answer(
          attach ? { allowed: false, status: { code: 403, message: 'attaching is not allowed' } } : { allowed: true },
        );
      } else if (path === '/add-init-container') {
        const patch = [
          { op: 'add', path: '/spec/initContainers', value: [{ name: 'init', image: 'registry.k8s.io/pause:3.10' }] },
        ];
        answer({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
      } else if (path === '/add-fields') {
        const patch = [
          { op: 'add', path: '/spec/known', value: 'added' },
          { op: 'add', path: '/spec/unknown', value: 'pruned' },
        ];
        answer({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
      } else if (path === '/validate') {
        if (object.data?.verdict === 'bad') answer({ allowed: false, status: { code: 403, message: 'bad data' } });
        else answer({ allowed: true });
      } else if (path === '/slow') {
        // Answers after the webhook's 1 s timeout; unref'd so it holds nothing once the test ends.
        setTimeout(() => answer({ allowed: true }), 3_000).unref();
      } else {
        answer({ allowed: true });
      }
    });
    base = webhookServer.url;
    caBundle = Buffer.from(webhookServer.caPem).toString('base64');
    // MutatingAdmissionPolicy on, for the reinvocation the webhooks share with policies.
    server = await startInProcessServer([
      '--runtime-config=admissionregistration.k8s.io/v1beta1=true',
      '--feature-gates=MutatingAdmissionPolicy=true',
    ]);
  });

  afterAll(async () => {
    await server?.stop();
    await webhookServer?.close();
  });

  const configuration = (
    kind: 'Mutating' | 'Validating',
    name: string,
    webhook: string,
  ) => `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata: {name: ${name}}
webhooks:
${webhook}`;
  const webhook = (name: string, path: string, extra = '', namespace = 'default') => `- name: ${name}
  clientConfig: {url: "${base}${path}", caBundle: ${caBundle}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ${namespace}}}
  sideEffects: None
  admissionReviewVersions: [v1]
${extra}`;

  async function apply(yaml: string): Promise<void> {
    const result = await server.kubectl(['apply', '-f', '-'], { input: yaml });
    if (result.code !== 0) throw new Error(result.stderr);
  }

  it('a mutating webhook adds a label and a warning; a validating one refuses with its message', async () => {
    await server.kubectl(['create', 'namespace', 'hooks']);
    await apply(configuration('Mutating', 'mutate', webhook('m.example.com', '/mutate', '', 'hooks')));
    await apply(configuration('Validating', 'validate', webhook('v.example.com', '/validate', '', 'hooks')));
    const created = await server.kubectl([
      'create',
      'configmap',
      'good',
      '-n',
      'hooks',
      '--from-literal=verdict=good',
      '-o',
      'json',
    ]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).metadata.labels).toEqual({ mutated: 'true' });
    expect(created.stderr).toContain('Warning: mutated by the test webhook');
    const review = received.find((r) => r.request.name === 'good' && r.request.operation === 'CREATE');
    expect(review?.request).toMatchObject({
      namespace: 'hooks',
      dryRun: false,
      userInfo: { username: 'kubernetes-admin' },
    });

    const refused = await server.kubectl(['create', 'configmap', 'bad', '-n', 'hooks', '--from-literal=verdict=bad']);
    // The mutating webhook's warning goes out with the refusal, as the reference sends it.
    expect(refused.stderr.trim()).toBe(
      'Warning: mutated by the test webhook\n' +
        'error: failed to create configmap: admission webhook "v.example.com" denied the request: bad data',
    );
    expect((await server.kubectl(['get', 'configmap', 'bad', '-n', 'hooks'])).code).not.toBe(0);
  });

  it('reinvokes an IfNeeded mutating webhook once when a later webhook changed the object', async () => {
    await server.kubectl(['create', 'namespace', 'again']);
    // Configurations run in name order: a-… (IfNeeded) before b-… (Never).
    await apply(
      configuration(
        'Mutating',
        'a-reinvoked',
        webhook('a.example.com', '/label-a', '  reinvocationPolicy: IfNeeded\n', 'again'),
      ),
    );
    await apply(
      configuration(
        'Mutating',
        'b-changes',
        webhook('b.example.com', '/label-b', '  reinvocationPolicy: IfNeeded\n', 'again'),
      ),
    );
    const created = await server.kubectl(['create', 'configmap', 'twice', '-n', 'again', '-o', 'json']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).metadata.labels).toEqual({ a: '0', b: '1' });
    const calls = (name: string) =>
      received
        .filter((r) => r.request.name === name)
        .map((r) =>
          Object.keys(r.request.object.metadata.labels ?? {})
            .sort()
            .join(','),
        );
    // a again after b's change (seeing it); b not again: nothing changed after it.
    expect(calls('twice')).toEqual(['', 'a', 'a,b']);
    // A Never webhook is not called again, even when a later one changes the object.
    await apply(
      configuration(
        'Mutating',
        'a-reinvoked',
        webhook('a.example.com', '/label-a', '  reinvocationPolicy: Never\n', 'again'),
      ),
    );
    // (until the cache has the new policy: then a is called once and b once)
    let attempt = 0;
    const name = await retryUntil(
      async () => {
        const candidate = `once${attempt++}`;
        expect((await server.kubectl(['create', 'configmap', candidate, '-n', 'again'])).code).toBe(0);
        return candidate;
      },
      (created) => calls(created).length === 2,
      2_000,
    );
    expect(calls(name)).toEqual(['', 'a']);
  });

  it('an IfNeeded policy runs again after a webhook changed the object, and an IfNeeded webhook after that', async () => {
    await server.kubectl(['create', 'namespace', 'mixed']);
    // The policy (before the webhooks in the chain) copies label b, which only the webhook b-… sets.
    await apply(`apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: copy-b}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: mixed}}
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"copy": object.metadata.?labels.?b.orValue("none")}}}'
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: copy-b}
spec: {policyName: copy-b}
`);
    await apply(
      configuration(
        'Mutating',
        'mixed-a',
        webhook('a.example.com', '/label-a', '  reinvocationPolicy: IfNeeded\n', 'mixed'),
      ),
    );
    await apply(configuration('Mutating', 'mixed-b', webhook('b.example.com', '/label-b', '', 'mixed')));
    let attempt = 0;
    const created = await retryUntil(
      async () => {
        const result = await server.kubectl(['create', 'configmap', `mixed${attempt++}`, '-n', 'mixed', '-o', 'json']);
        expect(result.code).toBe(0);
        return JSON.parse(result.stdout) as { metadata: { name: string; labels?: Record<string, string> } };
      },
      (object) => object.metadata.labels?.b !== undefined && object.metadata.labels.copy !== undefined,
      5_000,
    );
    // First pass: copy=none, a=1, b=2; the second: the policy again (copy=2), then webhook a
    // again, since the policy changed the object after it.
    expect(created.metadata.labels).toEqual({ copy: '2', a: '1', b: '2' });
    const seen = received
      .filter((r) => r.request.name === created.metadata.name)
      .map((r) =>
        Object.keys(r.request.object.metadata.labels ?? {})
          .sort()
          .join(','),
      );
    expect(seen).toEqual(['copy', 'a,copy', 'a,b,copy']);
  });

  it('matchPolicy Equivalent: a v1 rule sees a v2 request in v1, and its patch lands in v2', async () => {
    await server.kubectl(['create', 'namespace', 'scale']);
    const hpaWebhook = (name: string, extra: string) =>
      webhook(name, '/hpa', extra, 'scale').replace(
        'rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]',
        'rules: [{apiGroups: [autoscaling], apiVersions: [v1], operations: [CREATE], resources: [horizontalpodautoscalers]}]',
      );
    await apply(configuration('Mutating', 'hpa-equivalent', hpaWebhook('equivalent.example.com', '')));
    await apply(configuration('Validating', 'hpa-exact', hpaWebhook('exact.example.com', '  matchPolicy: Exact\n')));
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'scale' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        ],
      },
    };
    const created = await server.request('POST', '/apis/autoscaling/v2/namespaces/scale/horizontalpodautoscalers', {
      body: JSON.stringify(hpa),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({
      apiVersion: 'autoscaling/v2',
      spec: { maxReplicas: 7, metrics: hpa.spec.metrics },
    });
    const reviews = received.filter(
      (r) => r.request.name === 'web' && r.request.namespace === 'scale',
    ) as unknown as Array<{ request: Record<string, unknown> }>;
    // Only the Equivalent webhook was called (the Exact one names v1 only), with the object in v1.
    expect(reviews).toHaveLength(1);
    expect(reviews[0].request).toMatchObject({
      kind: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
      resource: { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' },
      requestKind: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
      requestResource: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' },
      object: {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        spec: { maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
      },
    });
  });

  it('a webhook that times out fails the write under Fail and is skipped under Ignore', async () => {
    await server.kubectl(['create', 'namespace', 'slow']);
    await apply(
      configuration(
        'Validating',
        'slow',
        webhook('slow.example.com', '/slow', '  timeoutSeconds: 1\n  failurePolicy: Fail\n', 'slow'),
      ),
    );
    const failed = await server.request('POST', '/api/v1/namespaces/slow/configmaps', {
      body: JSON.stringify({ metadata: { name: 'c1' } }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(failed.status).toBe(500);
    expect(failed.json()).toMatchObject({
      reason: 'InternalError',
      message: `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${base}/slow?timeout=1s": context deadline exceeded`,
    });
    await apply(
      configuration(
        'Validating',
        'slow',
        webhook('slow.example.com', '/slow', '  timeoutSeconds: 1\n  failurePolicy: Ignore\n', 'slow'),
      ),
    );
    const ignored = await retryUntil(
      () => server.kubectl(['create', 'configmap', 'c2', '-n', 'slow']),
      (result) => result.code === 0,
      2_000,
    );
    expect(ignored.code).toBe(0);
  });

  it('a dry run is refused by a webhook with side effects', async () => {
    await server.kubectl(['create', 'namespace', 'effects']);
    // v1 refuses side effects Some on create; a configuration stored before then still has them.
    const legacy = parseYaml(
      configuration(
        'Validating',
        'effects',
        webhook('se.example.com', '/other', '', 'effects').replace('sideEffects: None', 'sideEffects: Some'),
      ),
    ) as KubeObject;
    const configurations = server.plane.registry.find(
      { group: 'admissionregistration.k8s.io', version: 'v1' },
      'validatingwebhookconfigurations',
    );
    await server.plane.storageFor(configurations!).create({ name: 'effects' }, legacy);
    // Admitted (201) until the server's cache of configurations has it.
    const dryRun = await once(
      () =>
        server.request('POST', '/api/v1/namespaces/effects/configmaps?dryRun=All', {
          body: JSON.stringify({ metadata: { name: 'd1' } }),
          headers: { 'Content-Type': 'application/json' },
        }),
      201,
    );
    expect(dryRun.status).toBe(400);
    expect(dryRun.json()).toMatchObject({
      reason: 'BadRequest',
      message: 'admission webhook "se.example.com" does not support dry run',
    });
    expect((await server.kubectl(['create', 'configmap', 'd2', '-n', 'effects'])).code).toBe(0);
  });

  /** Retries `request` while it answers `pending` (the webhook configuration not yet in the server's cache), bounded. */
  async function once(
    request: () => Promise<{ status: number }>,
    pending: number,
  ): Promise<Awaited<ReturnType<TestServer['request']>>> {
    return retryUntil(
      async () => (await request()) as Awaited<ReturnType<TestServer['request']>>,
      (answer) => answer.status !== pending,
      3_000,
    );
  }

  it('admits a connection (CONNECT pods/attach) with its options object, before the pod is looked up', async () => {
    await server.kubectl(['create', 'namespace', 'connect']);
    const rule = '  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CONNECT], resources: [pods/attach]}]\n';
    await apply(
      configuration(
        'Validating',
        'deny-attach',
        webhook('attach.example.com', '/deny-attach', '', 'connect').replace(/  rules: .*\n/, rule),
      ),
    );
    const attach = (query: string) => () =>
      server.request('POST', `/api/v1/namespaces/connect/pods/nowhere/attach?${query}`);
    const refused = await once(attach('container=c1&stdin=true&stdout=true'), 404);
    expect(refused.status).toBe(403);
    // The webhook's own status, as the reference passes it on (no reason, as the webhook left it:
    // an empty reason is omitted).
    expect(refused.json()).toMatchObject({
      code: 403,
      message: 'admission webhook "attach.example.com" denied the request: attaching is not allowed',
    });
    expect(refused.json()).not.toHaveProperty('reason');
    const review = received.find((r) => r.request.operation === 'CONNECT');
    expect(review?.request).toMatchObject({
      name: 'nowhere',
      namespace: 'connect',
      subResource: 'attach',
      object: { kind: 'PodAttachOptions', apiVersion: 'v1', container: 'c1', stdin: true, stdout: true },
    });
    expect(review?.request.options).toBeUndefined();
    // Allowed through, the connection goes on to the pod, which does not exist.
    expect(
      (await server.request('POST', '/api/v1/namespaces/connect/pods/nowhere/attach?container=c2&stdin=true')).status,
    ).toBe(404);
  });

  it("defaults what a webhook's patch adds, and prunes a custom resource's unknown fields", async () => {
    await server.kubectl(['create', 'namespace', 'defaults']);
    const podRule = '  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n';
    await apply(
      configuration(
        'Mutating',
        'add-init',
        webhook('init.example.com', '/add-init-container', '', 'defaults').replace(/  rules: .*\n/, podRule),
      ),
    );
    await server.request('POST', '/api/v1/namespaces/defaults/serviceaccounts', {
      body: JSON.stringify({ metadata: { name: 'default' } }),
      headers: { 'Content-Type': 'application/json' },
    });
    const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } };
    const createPod = () =>
      server.request('POST', '/api/v1/namespaces/defaults/pods', {
        body: JSON.stringify(pod),
        headers: { 'Content-Type': 'application/json' },
      });
    // Until the webhook configuration is in the server's cache, the pod is created without it: deleted, tried again.
    const created = await retryUntil(
      async () => {
        await server.request('DELETE', '/api/v1/namespaces/defaults/pods/p?gracePeriodSeconds=0');
        return createPod();
      },
      (answer) => answer.status !== 201 || answer.body.includes('initContainers'),
      3_000,
    );
    expect(created.status).toBe(201);
    expect(created.json<{ spec: { initContainers: object[] } }>().spec.initContainers[0]).toMatchObject({
      name: 'init',
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePolicy: 'File',
      terminationMessagePath: '/dev/termination-log',
    });

    await apply(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {known: {type: string}}}
`);
    const crRule =
      '  rules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [gadgets]}]\n';
    await apply(
      configuration(
        'Mutating',
        'add-fields',
        webhook('fields.example.com', '/add-fields', '', 'defaults').replace(/  rules: .*\n/, crRule),
      ),
    );
    const createGadget = (name: string) => () =>
      server.request('POST', '/apis/example.com/v1/namespaces/defaults/gadgets', {
        body: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name }, spec: {} }),
        headers: { 'Content-Type': 'application/json' },
      });
    let attempt = 0;
    const gadget = await retryUntil(
      () => once(createGadget(`g${attempt++}`), 404),
      (answer) => answer.status !== 201 || answer.body.includes('added'),
      3_000,
    );
    expect(gadget.status).toBe(201);
    expect(gadget.json<{ spec: object }>().spec).toEqual({ known: 'added' });
  });

  it('refuses a webhook configuration whose matchCondition does not compile', async () => {
    const conditions = '  matchConditions: [{name: broken, expression: "... [] bad expression"}]\n';
    const refused = await server.kubectl(['apply', '-f', '-'], {
      input: configuration('Validating', 'broken', webhook('broken.example.com', '/other', conditions)),
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'webhooks[0].matchConditions[0].expression: Invalid value: "... [] bad expression": compilation failed: ERROR: <input>:1:1: Syntax error',
    );
  });
});
