/**
 * Configuration files the reference refused at start, each refused by capstan in the same words
 * (fixtures/config-file-startup.reference.json, recorded from kube-apiserver 1.34.4): an
 * ImagePolicyWebhook configuration holding a value of the wrong type, an authorization
 * configuration of another, unknown or missing kind, and a webhook kubeconfig whose
 * certificate-authority-data is a list. The reference exits 1 after any of them (its one code
 * for a failed start); capstan keeps its own contract of 2 for a configuration it refuses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, failingStart } from '../helpers/capstan-process';

interface Case {
  readonly name: string;
  /** Which flag the file was given with. */
  readonly flag: 'admission' | 'authz' | 'webhook-kubeconfig';
  /** The file; `{DIR}` is the folder it is written in. */
  readonly text: string;
  /** The error of the reference's "command failed" line; `{FILE}` is the file's path. */
  readonly refusal: string;
  readonly code: number;
}

const FIXTURE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'config-file-startup.reference.json'), 'utf8')) as {
  cases: Case[];
};

function flagsFor(recorded: Case, file: string): string[] {
  switch (recorded.flag) {
    case 'admission':
      return [`--admission-control-config-file=${file}`, '--enable-admission-plugins=ImagePolicyWebhook'];
    case 'authz':
      return [`--authorization-config=${file}`];
    case 'webhook-kubeconfig':
      return ['--authorization-mode=Webhook', `--authorization-webhook-config-file=${file}`];
  }
}

jest.setTimeout(60_000);

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'capstan-config-startup-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(FIXTURE.cases.map((recorded) => [recorded.name, recorded] as const))('%s', async (_name, recorded) => {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, recorded.text.replaceAll('{DIR}', dir));
  const result = await failingStart([
    '--data-dir',
    join(dir, 'data'),
    '--secure-port',
    '0',
    ...flagsFor(recorded, file),
  ]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`capstan: ${recorded.refusal.replaceAll('{FILE}', file).replaceAll('{DIR}', dir)}\n`);
});
