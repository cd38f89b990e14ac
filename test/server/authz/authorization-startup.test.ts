/** Authorization configurations the server refuses to start with: one line, exit code 2. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, failingStart } from '../../helpers/capstan-process';
import { recordedConfigCases, writeRecordedCase } from '../../helpers/recorded-config-cases';

/** Files kube-apiserver v1.34.4 refused as --authorization-config, with the whole error it exited with. */
const STARTUP_CASES = recordedConfigCases(join(__dirname, 'fixtures', 'authorization-startup.reference.json'));

jest.setTimeout(60_000);

describe('authorization start-up failures', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'capstan-authz-startup-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = (...flags: string[]) => failingStart(['--data-dir', join(dir, 'data'), '--secure-port', '0', ...flags]);

  it('both --authorization-config and --authorization-mode', async () => {
    writeFileSync(
      join(dir, 'authz.yaml'),
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: [{type: RBAC, name: rbac}]\n',
    );
    const result = await start(`--authorization-config=${join(dir, 'authz.yaml')}`, '--authorization-mode=RBAC');
    expect(result.code).toBe(2);
    expect(result.lastLine).toContain(
      '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
    );
  });

  // Each recorded file's refusal is the whole line the reference exits with, nothing added.
  it.each(STARTUP_CASES.map((recorded) => [recorded.name, recorded] as const))(
    'a configuration file refused: %s',
    async (_, recorded) => {
      const path = writeRecordedCase(dir, recorded);
      const result = await start(`--authorization-config=${path}`);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`capstan: ${String(recorded.refusal).replaceAll('{FILE}', path)}\n`);
    },
  );

  it('an ABAC policy line that does not parse', async () => {
    writeFileSync(
      join(dir, 'policy.jsonl'),
      '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": 7}}\n',
    );
    const result = await start('--authorization-mode=ABAC', `--authorization-policy-file=${join(dir, 'policy.jsonl')}`);
    expect(result.code).toBe(2);
    expect(result.lastLine).toContain('policy.jsonl:1: unable to read the ABAC policy: spec.user must be a string');
  });
});
