/** The Webhook mode against a real HTTPS webhook, and the configuration file that can name it. */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAuthorizationConfig } from '../../../server/authz/authorization-config';
import { chainFromConfig } from '../../../server/authz/configured-authorization';
import { reloadingAuthorizer } from '../../../server/authz/reloading-authorizer';
import { requestAttributes } from '../../../server/authz/request-attributes';
import { ALLOW, NO_OPINION, attributesFrom, type Authorizer } from '../../../server/authz/types';
import { readWebhookKubeconfig } from '../../../server/webhook-client/kubeconfig';
import { webhookAuthorizer, type WebhookOptions } from '../../../server/authz/webhook/webhook-authorizer';
import type { UserInfo } from '../../../api/user-info';
import { resolveRequestInfo } from '../../../server/request/request-info';
import { startWebhookServer, type WebhookServer } from './webhook-server';
import { waitUntil } from '../../helpers/wait-for';

const alice: UserInfo = {
  name: 'alice',
  uid: 'u-1',
  groups: ['dev', 'system:authenticated'],
  extra: { scopes: ['a'] },
};
const attributesOf = (user: UserInfo, method: string, path: string, query = '') =>
  requestAttributes(resolveRequestInfo({ method, path, query }), user, query);

describe('the webhook authorizer', () => {
  const attempts = new Map<string, number>();
  let dir: string;
  let webhook: WebhookServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-webhook-'));
    webhook = await startWebhookServer(({ spec }) => {
      const resource = spec.resourceAttributes as Record<string, string> | undefined;
      if (resource?.resource === 'secrets') return { allowed: false, denied: true, reason: 'no secrets for you' };
      if (resource?.resource === 'nodes') return 'fail';
      // An endpoints' name says what to answer, and how many times, before the allow.
      if (resource?.resource === 'endpoints') {
        const [action, times] = resource.name.split('-');
        const seen = (attempts.get(resource.name) ?? 0) + 1;
        attempts.set(resource.name, seen);
        if (seen <= Number(times)) return action === 'reset' ? 'reset' : { httpStatus: Number(action) };
        return { allowed: true, reason: 'at last' };
      }
      if (
        resource?.resource === 'configmaps' ||
        (spec.nonResourceAttributes as Record<string, string> | undefined)?.path === '/logs'
      )
        return { allowed: true, reason: 'fine' };
      return { allowed: false };
    });
  });
  afterAll(async () => {
    await webhook.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => webhook.reviews.splice(0));

  const options = (overrides: Partial<WebhookOptions> = {}): WebhookOptions => ({
    client: readWebhookKubeconfig(webhook.kubeconfigFor(dir)),
    version: 'v1',
    authorizedTtlMs: 300_000,
    unauthorizedTtlMs: 30_000,
    cacheAuthorized: true,
    cacheUnauthorized: true,
    timeoutMs: 5_000,
    failurePolicy: 'NoOpinion',
    retryInitialDelayMs: 5,
    ...overrides,
  });

  it('sends a v1 review with the resource attributes, user and selectors, and takes allowed, denied and no opinion', async () => {
    const authorizer = webhookAuthorizer(options());
    expect(
      await authorizer.authorize(
        attributesOf(
          alice,
          'GET',
          '/api/v1/namespaces/ns/configmaps',
          'labelSelector=app%3Dweb&fieldSelector=metadata.name%3Dx',
        ),
      ),
    ).toEqual({ decision: 'allow', reason: 'fine' });
    expect(webhook.reviews[0]).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        uid: 'u-1',
        groups: ['dev', 'system:authenticated'],
        extra: { scopes: ['a'] },
        resourceAttributes: {
          namespace: 'ns',
          verb: 'list',
          group: '',
          version: 'v1',
          resource: 'configmaps',
          subresource: '',
          name: 'x',
          fieldSelector: { requirements: [{ key: 'metadata.name', operator: 'In', values: ['x'] }] },
          labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['web'] }] },
        },
      },
    });
    expect(await authorizer.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/secrets/s'))).toEqual({
      decision: 'deny',
      reason: 'no secrets for you',
    });
    expect(await authorizer.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/pods/p'))).toEqual(NO_OPINION);
  });

  it('leaves Gt and Lt label requirements out of the review, and the selector when only they were asked', async () => {
    const authorizer = webhookAuthorizer(options());
    const resourceAttributes = async (labelSelector: string) => {
      await authorizer.authorize(
        attributesOf(
          alice,
          'GET',
          '/api/v1/namespaces/ns/configmaps',
          `labelSelector=${encodeURIComponent(labelSelector)}`,
        ),
      );
      return (webhook.reviews.at(-1)?.spec as { resourceAttributes?: Record<string, unknown> }).resourceAttributes;
    };
    expect((await resourceAttributes('n>5,app=web,m<2'))?.labelSelector).toEqual({
      requirements: [{ key: 'app', operator: 'In', values: ['web'] }],
    });
    expect(await resourceAttributes('n>5')).not.toHaveProperty('labelSelector');
  });

  it('sends v1beta1 with `group` and non-resource attributes', async () => {
    const authorizer = webhookAuthorizer(options({ version: 'v1beta1' }));
    expect((await authorizer.authorize(attributesOf(alice, 'GET', '/logs'))).decision).toBe('allow');
    expect(webhook.reviews[0]).toEqual({
      apiVersion: 'authorization.k8s.io/v1beta1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        uid: 'u-1',
        group: ['dev', 'system:authenticated'],
        extra: { scopes: ['a'] },
        nonResourceAttributes: { path: '/logs', verb: 'get' },
      },
    });
  });

  it('caches answers by the review, allowed and not allowed each for its own time', async () => {
    const authorizer = webhookAuthorizer(options({ unauthorizedTtlMs: 50 }));
    await authorizer.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/configmaps/a'));
    await authorizer.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/configmaps/a'));
    await authorizer.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/pods/a'));
    await authorizer.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/pods/a'));
    expect(webhook.reviews).toHaveLength(2);
    // The not-allowed answer's 50 ms run out on the cache's clock, moved on rather than waited for.
    const later = Date.now() + 80;
    const clock = jest.spyOn(Date, 'now').mockReturnValue(later);
    try {
      await authorizer.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/pods/a'));
      await authorizer.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/configmaps/a'));
    } finally {
      clock.mockRestore();
    }
    expect(webhook.reviews).toHaveLength(3);
    const uncached = webhookAuthorizer(options({ cacheAuthorized: false }));
    await uncached.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/configmaps/a'));
    await uncached.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/configmaps/a'));
    expect(webhook.reviews).toHaveLength(5);
  });

  it('follows the failure policy when the call fails', async () => {
    const nodes = attributesOf(alice, 'GET', '/api/v1/nodes/n1');
    expect((await webhookAuthorizer(options()).authorize(nodes)).decision).toBe('no-opinion');
    const denied = await webhookAuthorizer(options({ failurePolicy: 'Deny', name: 'corp' })).authorize(nodes);
    expect(denied).toEqual({ decision: 'deny', reason: 'webhook "corp": the webhook answered HTTP 500' });
    const unreachable = webhookAuthorizer(
      options({ client: { ...options().client, url: new URL('https://127.0.0.1:1/') } }),
    );
    expect((await unreachable.authorize(nodes)).decision).toBe('no-opinion');
  });

  it('calls again after an answer that may pass (429, 500, 504, a reset connection), five times at most', async () => {
    const authorizer = webhookAuthorizer(options({ failurePolicy: 'Deny' }));
    const endpoints = (name: string) => attributesOf(alice, 'GET', `/api/v1/namespaces/ns/endpoints/${name}`);
    for (const name of ['429-2', '500-4', '504-1', 'reset-2']) {
      expect(await authorizer.authorize(endpoints(name))).toEqual({ decision: 'allow', reason: 'at last' });
      expect(attempts.get(name)).toBe(Number(name.split('-')[1]) + 1);
    }
    expect(await authorizer.authorize(endpoints('500-5'))).toEqual({
      decision: 'deny',
      reason: 'webhook: the webhook answered HTTP 500',
    });
    expect(attempts.get('500-5')).toBe(5);
    // An answer that will not pass by asking again is final.
    expect((await authorizer.authorize(endpoints('403-1'))).decision).toBe('deny');
    expect((await authorizer.authorize(endpoints('503-1'))).decision).toBe('deny');
    expect([attempts.get('403-1'), attempts.get('503-1')]).toEqual([1, 1]);
  });

  it('waits half a second and more between attempts, as the reference', async () => {
    const began = Date.now();
    const authorizer = webhookAuthorizer(options({ retryInitialDelayMs: undefined }));
    expect(await authorizer.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/ns/endpoints/500-2'))).toEqual({
      decision: 'allow',
      reason: 'at last',
    });
    // 500 ms, then 750, each up to a fifth longer.
    expect(Date.now() - began).toBeGreaterThanOrEqual(1_250);
    expect(Date.now() - began).toBeLessThan(2_500);
  });
});

describe('the authorization configuration file', () => {
  const valid = (kubeconfig: string, extra = '') => `
apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: corp
  webhook:
    timeout: 3s
    authorizedTTL: 1m
    subjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${kubeconfig}}${extra}
- type: RBAC
  name: rbac
`;

  it('takes every field and fills the defaults', () => {
    const config = parseAuthorizationConfig(valid('/etc/webhook.kubeconfig'));
    expect(config.authorizers).toEqual([
      {
        type: 'Webhook',
        name: 'corp',
        webhook: {
          authorizedTtlMs: 60_000,
          cacheAuthorizedRequests: true,
          unauthorizedTtlMs: 30_000,
          cacheUnauthorizedRequests: true,
          timeoutMs: 3_000,
          subjectAccessReviewVersion: 'v1',
          failurePolicy: 'Deny',
          kubeConfigFile: '/etc/webhook.kubeconfig',
          matchConditions: [],
        },
      },
      { type: 'RBAC', name: 'rbac' },
    ]);
  });

  it.each([
    {
      name: 'no authorizers',
      text: 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: []',
      error: 'authorizers: Required value: at least one authorization mode must be defined',
    },
    {
      name: 'a timeout over 30 s',
      text: valid('/k').replace('timeout: 3s', 'timeout: 31s'),
      error: 'authorizers[0].webhook.timeout: Invalid value: must be <= 30s',
    },
    {
      name: 'a missing failure policy',
      text: valid('/k').replace('    failurePolicy: Deny\n', ''),
      error: 'authorizers[0].webhook.failurePolicy: Required value',
    },
    {
      name: 'an unknown review version',
      text: valid('/k').replace('subjectAccessReviewVersion: v1', 'subjectAccessReviewVersion: v2'),
      error: 'authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: "v2"',
    },
    {
      name: 'InClusterConfig',
      text: valid('/k').replace('type: KubeConfigFile, kubeConfigFile: /k', 'type: InClusterConfig'),
      error: 'authorizers[0].webhook.connectionInfo.type: Unsupported value: "InClusterConfig"',
    },
    {
      name: 'RBAC twice',
      text: `${valid('/k')}- type: RBAC\n  name: rbac2\n`,
      error: 'authorizers[2].type: Duplicate value: "RBAC"',
    },
    {
      name: 'a webhook on RBAC',
      text: `${valid('/k')}- type: Node\n  name: node\n  webhook: {}\n`,
      error: 'authorizers[2].webhook: Invalid value: non-null webhook config is only allowed for type Webhook',
    },
    {
      name: 'too many match conditions',
      text: valid(
        '/k',
        `\n    matchConditionSubjectAccessReviewVersion: v1\n    matchConditions:\n${Array.from({ length: 65 }, (_, i) => `    - expression: "request.user == 'u${i}'"`).join('\n')}`,
      ),
      error: 'authorizers[0].webhook.matchConditions: Too many: 65: must have at most 64 items',
    },
  ])('refuses $name', ({ text, error }) => {
    expect(() => parseAuthorizationConfig(text)).toThrow(error);
  });

  it('reloads when the file changes, and a broken file keeps the last good chain', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-authz-config-'));
    const webhook = await startWebhookServer(() => ({ allowed: true, reason: 'corp says yes' }));
    try {
      const kubeconfig = webhook.kubeconfigFor(dir);
      const path = join(dir, 'authz.yaml');
      const rbacOnly =
        'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: rbac}\n';
      writeFileSync(path, rbacOnly);
      const rbac: Authorizer = { authorize: () => NO_OPINION };
      const rejected: string[] = [];
      let reloaded = 0;
      const authorizer = reloadingAuthorizer({
        path,
        build: (config) => chainFromConfig(config, { rbac: () => rbac, node: () => rbac }),
        onRejected: (message) => rejected.push(message),
        onReloaded: () => reloaded++,
        intervalMs: 60_000,
      });
      try {
        const ask = () =>
          authorizer.authorize(
            attributesFrom(resolveRequestInfo({ method: 'GET', path: '/api/v1/namespaces/a/pods', query: '' }), alice),
          );
        expect(await ask()).toEqual(NO_OPINION);
        // Written elsewhere and renamed over, as editors and mounted config maps do; the watch sees it.
        writeFileSync(join(dir, 'next.yaml'), valid(kubeconfig));
        renameSync(join(dir, 'next.yaml'), path);
        await waitUntil('the reload', () => reloaded > 0, 2_000, 20);
        expect(reloaded).toBe(1);
        expect(await ask()).toEqual({ ...ALLOW, reason: 'corp says yes' });
        writeFileSync(path, valid(kubeconfig).replace('timeout: 3s', 'timeout: 45s'));
        await waitUntil('the rejection', () => rejected.length > 0, 2_000, 20);
        expect(rejected[0]).toContain('authorizers[0].webhook.timeout: Invalid value: must be <= 30s');
        expect(await ask()).toEqual({ ...ALLOW, reason: 'corp says yes' });
        expect(authorizer.reload()).toBe(false);
      } finally {
        authorizer.stop();
      }
    } finally {
      await webhook.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asks the webhook only when every match condition holds; a condition that errs follows the failure policy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-match-'));
    const webhook = await startWebhookServer(() => ({ allowed: true, reason: 'matched' }));
    try {
      const conditions = (policy: string, ...expressions: string[]) =>
        parseAuthorizationConfig(
          valid(
            webhook.kubeconfigFor(dir),
            `
    matchConditionSubjectAccessReviewVersion: v1
    matchConditions:
${expressions.map((expression) => `    - expression: ${JSON.stringify(expression)}`).join('\n')}`,
          ).replace('failurePolicy: Deny', `failurePolicy: ${policy}`),
        );
      const build = (config: ReturnType<typeof parseAuthorizationConfig>) =>
        chainFromConfig(config, {
          rbac: () => ({ authorize: () => NO_OPINION }),
          node: () => ({ authorize: () => NO_OPINION }),
        })[0];
      const onlyConfigMaps = build(
        conditions('Deny', 'has(request.resourceAttributes)', "request.resourceAttributes.resource == 'configmaps'"),
      );
      expect(await onlyConfigMaps.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/a/configmaps'))).toEqual({
        decision: 'allow',
        reason: 'matched',
      });
      expect(await onlyConfigMaps.authorize(attributesOf(alice, 'GET', '/api/v1/namespaces/a/pods'))).toEqual(
        NO_OPINION,
      );
      expect(await onlyConfigMaps.authorize(attributesOf(alice, 'GET', '/healthz'))).toEqual(NO_OPINION);
      expect(webhook.reviews).toHaveLength(1);
      // `request.resourceAttributes` is absent for a path, so this condition errs.
      const erring = (policy: string) =>
        build(conditions(policy, "request.resourceAttributes.resource == 'configmaps'"));
      expect((await erring('Deny').authorize(attributesOf(alice, 'GET', '/healthz'))).decision).toBe('deny');
      expect((await erring('NoOpinion').authorize(attributesOf(alice, 'GET', '/healthz'))).decision).toBe('no-opinion');
      expect(() => build(conditions('Deny', 'request.user +'))).toThrow(/matchConditions\[0\]\.expression/);
    } finally {
      await webhook.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
