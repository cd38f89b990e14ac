/**
 * The KMSv1 gate, off in 1.34: a configuration naming a KMS v1 provider (apiVersion v1, or none)
 * stops the start with kube-apiserver 1.34.4's own text, as it did there with the gate at its
 * default and with KMSv1=false. With the gate on the server starts and serves the v1 envelope
 * (kms-v1.test.ts), even while its plugin is away, as the reference does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDENTITY, writeEncryptionConfiguration } from '../../helpers/encryption-config';
import { startInProcessServer } from '../../helpers/in-process-server';

const dir = mkdtempSync(join(tmpdir(), 'kms-v1-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The flag for a file with one KMS provider for Secrets; `version` sets its apiVersion (absent: v1 by default). */
function configWith(version: Readonly<{ apiVersion?: string }>): string {
  const kms = { ...version, name: 'one', endpoint: `unix://${join(dir, 'kms.sock')}`, cachesize: 10 };
  const file = join(dir, `encryption-${Math.random().toString(36).slice(2)}.yaml`);
  return `--encryption-provider-config=${writeEncryptionConfiguration(file, [{ resources: ['secrets'], providers: [{ kms }, IDENTITY] }])}`;
}

const GATE_OFF =
  'error while building transformers: KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.';

test.each([
  ['at its default, apiVersion absent', configWith({}), []],
  ['at its default, apiVersion v1', configWith({ apiVersion: 'v1' }), []],
  ['turned off', configWith({}), ['--feature-gates=KMSv1=false']],
])('off (%s): the reference refuses KMS v1', async (_case, config, gates) => {
  await expect(startInProcessServer([config, ...gates])).rejects.toThrow(GATE_OFF);
});

test('on: the server starts with its plugin away, and its health check says so', async () => {
  const server = await startInProcessServer([configWith({}), '--feature-gates=KMSv1=true']);
  try {
    const check = await server.request('GET', '/healthz/kms-provider-0');
    expect(check.status).toBe(500);
    expect(check.body).toBe(
      `internal server error: failed to perform encrypt section of the healthz check for KMS Provider one, error: failed get version from remote KMS provider: rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: desc = "transport: Error while dialing: dial unix ${join(dir, 'kms.sock')}: connect: no such file or directory"\n`,
    );
  } finally {
    await server.stop();
  }
});
