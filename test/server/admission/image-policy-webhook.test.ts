/**
 * ImagePolicyWebhook with its configuration file, against a real server and a real webhook
 * served over HTTPS by the test: pods are admitted or refused as the webhook's ImageReview
 * answers say, with the messages kube-apiserver v1.34.4 gives; answers are remembered; an
 * unreachable webhook fails open or closed as `defaultAllow` says; a bad configuration stops
 * the server at start.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, failingStart } from '../../helpers/capstan-process';
import { startServer, type TestServer } from '../../helpers/server';
import { startWebhookServer, type WebhookServer } from '../authz/webhook-server';

const json = { 'content-type': 'application/json' };

function writeConfiguration(dir: string, policy: string): string {
  writeFileSync(
    join(dir, 'admission.yaml'),
    `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  configuration:\n    imagePolicy: {${policy}}\n`,
  );
  return join(dir, 'admission.yaml');
}

async function createPod(
  server: TestServer,
  name: string,
  images: string[],
  annotations: Record<string, string> = {},
): Promise<{ status: number; body: { message?: string; metadata?: { annotations?: Record<string, string> } } }> {
  const answer = await server.request('POST', '/api/v1/namespaces/default/pods', {
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, annotations },
      spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
    }),
    headers: json,
  });
  return { status: answer.status, body: JSON.parse(answer.body) };
}

describe('ImagePolicyWebhook', () => {
  let server: TestServer;
  let webhook: WebhookServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'image-policy-'));
    webhook = await startWebhookServer(({ spec }) => {
      const images = (spec.containers as { image: string }[]).map((container) => container.image);
      if (images.includes('broken')) return 'fail';
      if (images.includes('evil')) return { allowed: false, reason: 'evil is not signed' };
      if (images.includes('quiet')) return { allowed: false };
      return { allowed: true };
    });
    const kubeconfig = webhook.kubeconfigFor(dir);
    const admission = writeConfiguration(
      dir,
      `kubeConfigFile: ${kubeconfig}, allowTTL: 50, denyTTL: 50, retryBackoff: 1, defaultAllow: false`,
    );
    server = await startServer({
      flags: ['--enable-admission-plugins=ImagePolicyWebhook', `--admission-control-config-file=${admission}`],
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends an ImageReview of the images, image-policy annotations and namespace; its allowance is remembered', async () => {
    const before = webhook.reviews.length;
    const annotations = { 'team.image-policy.k8s.io/ticket': 'T-1', unrelated: 'x' };
    expect((await createPod(server, 'good', ['nginx', 'busybox'], annotations)).status).toBe(201);
    expect(webhook.reviews.slice(before)).toEqual([
      {
        apiVersion: 'imagepolicy.k8s.io/v1alpha1',
        kind: 'ImageReview',
        metadata: {},
        spec: {
          containers: [{ image: 'nginx' }, { image: 'busybox' }],
          annotations: { 'team.image-policy.k8s.io/ticket': 'T-1' },
          namespace: 'default',
        },
        status: {},
      },
    ]);
    expect((await createPod(server, 'good-again', ['nginx', 'busybox'], annotations)).status).toBe(201);
    expect(webhook.reviews.length).toBe(before + 1);
  });

  it('refuses the pods the webhook denies, with its reason when it gives one', async () => {
    expect(await createPod(server, 'bad', ['nginx', 'evil'])).toMatchObject({
      status: 403,
      body: {
        reason: 'Forbidden',
        message: 'pods "bad" is forbidden: image policy webhook backend denied one or more images: evil is not signed',
      },
    });
    expect((await createPod(server, 'hushed', ['quiet'])).body.message).toBe(
      'pods "hushed" is forbidden: one or more images rejected by webhook backend',
    );
    expect((await server.request('GET', '/api/v1/namespaces/default/pods/bad')).status).toBe(404);
  });

  it('retries a webhook that fails, then refuses without defaultAllow', async () => {
    const before = webhook.reviews.length;
    expect(await createPod(server, 'unlucky', ['broken'])).toMatchObject({
      status: 403,
      body: { message: 'pods "unlucky" is forbidden: Error contacting webhook: 500' },
    });
    expect(webhook.reviews.length - before).toBe(5);
  });

  it('with defaultAllow an unreachable webhook admits the pod, marked failed-open', async () => {
    const gone = await startWebhookServer(() => ({ allowed: false }));
    const openDir = mkdtempSync(join(tmpdir(), 'image-policy-open-'));
    const kubeconfig = gone.kubeconfigFor(openDir);
    await gone.close();
    const admission = writeConfiguration(openDir, `kubeConfigFile: ${kubeconfig}, defaultAllow: true`);
    const open = await startServer({
      flags: ['--enable-admission-plugins=ImagePolicyWebhook', `--admission-control-config-file=${admission}`],
    });
    try {
      const created = await createPod(open, 'lucky', ['nginx']);
      expect(created.status).toBe(201);
      expect(created.body.metadata?.annotations).toEqual({ 'alpha.image-policy.k8s.io/failed-open': 'true' });
    } finally {
      await open.stop();
      rmSync(openDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('ImagePolicyWebhook configuration', () => {
  const start = async (policy?: string) => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'image-policy-bad-'));
    const args = [
      '--data-dir',
      join(dir, 'data'),
      '--secure-port',
      '0',
      '--enable-admission-plugins=ImagePolicyWebhook',
    ];
    if (policy !== undefined) args.push('--admission-control-config-file', writeConfiguration(dir, policy));
    try {
      const failed = await failingStart(args);
      return { code: failed.code, lastLine: failed.lastLine };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('without one the server does not start', async () => {
    expect(await start()).toEqual({
      code: 2,
      lastLine:
        'capstan: failed to apply admission: couldn\'t init admission plugin "ImagePolicyWebhook": no config specified',
    });
  }, 60_000);

  it('a cache time out of bounds is refused', async () => {
    expect(await start('kubeConfigFile: /nonexistent, allowTTL: 3600')).toEqual({
      code: 2,
      lastLine:
        'capstan: failed to apply admission: couldn\'t init admission plugin "ImagePolicyWebhook": valid value is between 1s and 30m0s, got 1h0m0s',
    });
  }, 60_000);
});
