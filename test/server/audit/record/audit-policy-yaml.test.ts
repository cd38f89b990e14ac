/**
 * An audit policy is read as the reference's lenient decoder reads it, through sigs.k8s.io/yaml:
 * each case of fixtures/audit-policy-yaml.reference.json was given to kube-apiserver v1.34.4 as
 * --audit-policy-file. Its refusal at start is what loadAuditPolicy says; a file it started
 * with is read here as the reference reads it (`yes` true and `off` false, `<<` merged with the
 * keys after it winning, a key set again winning).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuditPolicy } from '../../../../server/audit/record/policy';
import { readerRefusal, recordedConfigCases, writeRecordedCase } from '../../../helpers/recorded-config-cases';

const CASES = recordedConfigCases(join(__dirname, 'fixtures', 'audit-policy-yaml.reference.json'));

/** What each file the reference started with says, as its Go types hold it. */
const READINGS: Readonly<Record<string, unknown>> = {
  'omitManagedFields: yes': { omitManagedFields: true, rules: [{ level: 'Metadata', omitManagedFields: false }] },
  'a key set twice': { rules: [{ level: 'None' }] },
  'a rule merged from an anchor, a merged key set again': {
    rules: [
      { level: 'Metadata', users: ['alice'] },
      { level: 'Request', users: ['alice'] },
    ],
  },
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-audit-policy-yaml-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(CASES.map((recorded) => [recorded.name, recorded] as const))('%s', (_, recorded) => {
  const path = writeRecordedCase(dir, recorded);
  const read = () => loadAuditPolicy(path);
  if (recorded.refusal === null) {
    expect(READINGS[recorded.name]).toBeDefined();
    expect(read()).toMatchObject(READINGS[recorded.name] as object);
  } else expect(read).toThrow(readerRefusal(recorded.refusal, { prefix: '', path, dir }));
});
