/**
 * An --authentication-config file the server refuses stops the start (exit 2) with the whole
 * line kube-apiserver v1.34.4 exited with for it, nothing added: the recorded cases of
 * fixtures/authentication-config-yaml.reference.json, one of each way to refuse a file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, failingStart } from '../../helpers/capstan-process';
import { recordedConfigCases, writeRecordedCase } from '../../helpers/recorded-config-cases';

jest.setTimeout(60_000);

const STARTUP_CASES = [
  'anonymous enabled quoted',
  'a key set twice beside an unknown field',
  'a jwt authenticator without an issuer url',
  'another kind',
];
const CASES = recordedConfigCases(join(__dirname, 'fixtures', 'authentication-config-yaml.reference.json')).filter(
  (recorded) => STARTUP_CASES.includes(recorded.name),
);

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'capstan-authn-startup-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('every startup case is recorded', () => expect(CASES.map((recorded) => recorded.name)).toEqual(STARTUP_CASES));

test.each(CASES.map((recorded) => [recorded.name, recorded] as const))('%s', async (_, recorded) => {
  const path = writeRecordedCase(dir, recorded);
  const result = await failingStart([
    '--data-dir',
    join(dir, 'data'),
    '--secure-port',
    '0',
    `--authentication-config=${path}`,
  ]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`capstan: ${String(recorded.refusal).replaceAll('{FILE}', path)}\n`);
});
