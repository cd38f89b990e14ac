/**
 * Writes that warn and are then refused (and a read), and the admission webhook they meet: the same list
 * is sent to kube-apiserver 1.34.4 (its answers are in fixtures/refused-write-warnings.json) and
 * to capstan (refused-write-warnings.test.ts). Sent in order in the namespace `default`: later
 * cases act on what earlier ones created.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpResult } from '../../helpers/server';

export interface RefusedWriteCase {
  readonly name: string;
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly body?: unknown;
  /** A body sent as written, not as JSON. */
  readonly rawBody?: string;
  readonly contentType?: string;
  /**
   * Sent again until its answer carries a warning: a webhook configuration is taken up a moment
   * after it is written.
   */
  readonly untilWarned?: true;
  /** Sent again until its answer has this status, for the same reason. */
  readonly untilStatus?: number;
}

/** The texts of a response's `299 - "<text>"` warnings, the header's bytes read as UTF-8. */
export function warningsOf(result: HttpResult): string[] {
  const header = result.headers.warning;
  const values = Array.isArray(header) ? header : header ? header.split(/,\s*(?=299 )/) : [];
  return values.map((value) =>
    Buffer.from(value, 'latin1')
      .toString('utf8')
      .replace(/^299 - "(.*)"$/s, '$1')
      .replace(/\\(.)/g, '$1'),
  );
}

export interface RecordedAnswer {
  readonly status: number;
  readonly warnings: readonly string[];
}

const PODS = '/api/v1/namespaces/default/pods';
const CONFIG_MAPS = '/api/v1/namespaces/default/configmaps';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const WEBHOOKS = '/apis/admissionregistration.k8s.io/v1';

/** How long the webhook at `/slow` takes to answer: longer than the timeout of the request it holds up. */
const SLOW_ANSWER_MS = 3_000;

/**
 * Warns on every review; at `/validating`, denies what carries the label `verdict: deny`; at
 * `/slow`, answers after SLOW_ANSWER_MS.
 */
export function warningWebhook(req: IncomingMessage, res: ServerResponse, body: string): void {
  const { request } = JSON.parse(body) as {
    request: { uid: string; object?: { metadata?: { labels?: Record<string, string> } } };
  };
  const path = new URL(req.url ?? '/', 'https://webhook').pathname;
  const denied = path === '/validating' && request.object?.metadata?.labels?.verdict === 'deny';
  const answer = () => {
    res.setHeader('Content-Type', 'application/json');
    res.end(answerBody);
  };
  const answerBody = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid: request.uid,
      allowed: !denied,
      // Not ASCII: the header carries the text's UTF-8 bytes.
      warnings: [`warned by the webhook at ${path} ✓`],
      ...(denied ? { status: { code: 403, message: 'denied by the test webhook' } } : {}),
    },
  });
  // Unref'd: a test that is over holds nothing.
  if (path === '/slow') setTimeout(answer, SLOW_ANSWER_MS).unref();
  else answer();
}

/** A pod whose container has no image (refused), with what warns before and after validation. */
const invalidPod = (name: string, extra: { annotations?: Record<string, string> }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, annotations: extra.annotations },
  spec: { nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' }, containers: [{ name: 'c' }] },
});

const validPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'stored' },
  spec: { containers: [{ name: 'c', image: 'i' }] },
};

const webhookConfiguration = (
  kind: 'Validating' | 'Mutating',
  url: string,
  caBundle: string,
  path: 'validating' | 'mutating' | 'slow' = kind === 'Validating' ? 'validating' : 'mutating',
) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: `${kind}WebhookConfiguration`,
  metadata: { name: `warn-${path}` },
  webhooks: [
    {
      name: `warn.${path}.test`,
      clientConfig: { url: `${url}/${path}`, caBundle: Buffer.from(caBundle).toString('base64') },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
      objectSelector: { matchLabels: { webhook: path === 'slow' ? 'slow' : 'warns' } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      failurePolicy: 'Fail',
      timeoutSeconds: 5,
    },
  ],
});

const configMap = (
  metadata: { name?: string; generateName?: string },
  labels: Record<string, string>,
  data: Record<string, string>,
) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { ...metadata, labels: { webhook: 'warns', ...labels } },
  data,
});

export function refusedWriteCases(webhook: { url: string; caBundle: string }): RefusedWriteCase[] {
  return [
    {
      name: 'a refused Pod create keeps the AppArmor warning of its preparation, not those of its strategy',
      method: 'POST',
      path: PODS,
      body: invalidPod('apparmor', {
        annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default' },
      }),
    },
    {
      name: 'a refused Pod create keeps the unknown-field warning of its decoding',
      method: 'POST',
      path: `${PODS}?fieldValidation=Warn`,
      body: { ...invalidPod('unknown-field', {}), bogus: 1 },
    },
    {
      name: 'a refused Deployment create has no warning of its strategy',
      method: 'POST',
      path: DEPLOYMENTS,
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'refused' },
        spec: {
          replicas: -1,
          selector: { matchLabels: { a: 'b' } },
          template: {
            metadata: { labels: { a: 'b' } },
            spec: { nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' }, containers: [{ name: 'c', image: 'i' }] },
          },
        },
      },
    },
    { name: 'a Pod to update', method: 'POST', path: PODS, body: validPod },
    {
      name: 'a refused Pod update keeps its decoding warning, not those of its strategy',
      method: 'PUT',
      path: `${PODS}/stored?fieldValidation=Warn`,
      body: {
        ...validPod,
        bogus: 1,
        spec: { ...validPod.spec, nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' } },
      },
    },
    {
      name: 'a refused merge patch keeps its decoding warning',
      method: 'PATCH',
      path: `${PODS}/stored?fieldValidation=Warn`,
      contentType: 'application/merge-patch+json',
      body: { bogus: 1, spec: { nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' } } },
    },
    {
      name: 'a refused apply keeps the duplicate-field warning of its body',
      method: 'PATCH',
      path: `${PODS}/stored?fieldManager=test&force=true`,
      contentType: 'application/apply-patch+yaml',
      rawBody: [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  name: stored',
        '  name: stored',
        'spec:',
        '  nodeSelector:',
        '    beta.kubernetes.io/arch: amd64',
        '  containers:',
        '  - name: c',
        '    image: i',
        '',
      ].join('\n'),
    },
    {
      name: "a refused Endpoints create carries its version's deprecation",
      method: 'POST',
      path: '/api/v1/namespaces/default/endpoints',
      body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'Not-A-Name' } },
    },
    {
      name: 'so does the read of a missing one',
      method: 'GET',
      path: '/api/v1/namespaces/default/endpoints/missing',
    },
    {
      name: 'deleting a missing Job warns of its pods all the same',
      method: 'DELETE',
      path: `${JOBS}/missing`,
    },
    {
      name: 'a mutating webhook that warns',
      method: 'POST',
      path: `${WEBHOOKS}/mutatingwebhookconfigurations`,
      body: webhookConfiguration('Mutating', webhook.url, webhook.caBundle),
    },
    {
      name: 'a ConfigMap the webhook warns of, refused by its validation, carries the warning',
      method: 'POST',
      path: CONFIG_MAPS,
      body: configMap({ name: 'invalid' }, {}, { 'not a key': 'x' }),
      untilWarned: true,
    },
    {
      name: 'a validating webhook that warns and denies',
      method: 'POST',
      path: `${WEBHOOKS}/validatingwebhookconfigurations`,
      body: webhookConfiguration('Validating', webhook.url, webhook.caBundle),
    },
    {
      name: "a webhook's denial carries the warnings of both webhooks",
      method: 'POST',
      path: CONFIG_MAPS,
      // Named by the server: one sent before the webhook is taken up is created.
      body: configMap({ generateName: 'denied-' }, { verdict: 'deny' }, {}),
      untilStatus: 403,
    },
    {
      name: 'a webhook that answers slowly',
      method: 'POST',
      path: `${WEBHOOKS}/mutatingwebhookconfigurations`,
      body: webhookConfiguration('Mutating', webhook.url, webhook.caBundle, 'slow'),
    },
    {
      name: "a request's timeout answers without the warnings gathered before it",
      method: 'POST',
      // The decoder warns of the unknown field; the slow webhook then outlasts the timeout.
      path: `${CONFIG_MAPS}?fieldValidation=Warn&timeout=1s`,
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { generateName: 'slow-', labels: { webhook: 'slow' } },
        bogus: 1,
      },
      untilStatus: 504,
    },
  ];
}
