/**
 * An EncryptionConfiguration is read as the reference's strict decoder reads it, through
 * sigs.k8s.io/yaml: each case of fixtures/encryption-config-yaml.reference.json was given to
 * kube-apiserver v1.34.4 as --encryption-provider-config. Its refusal at start is what
 * loadEncryptionConfiguration says (keys set again first, then unknown fields, in one strict
 * decoding error); a file it started with is read here as the reference reads it (`<<` merged).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEncryptionConfiguration } from '../../../server/encryption/encryption-config';
import { readerRefusal, recordedConfigCases, writeRecordedCase } from '../../helpers/recorded-config-cases';

const CASES = recordedConfigCases(join(__dirname, 'fixtures', 'encryption-config-yaml.reference.json'));

/** What each file the reference started with says, as its Go types hold it. */
const READINGS: Readonly<Record<string, unknown>> = {
  'a key merged from an anchor': {
    resources: [
      {
        resources: ['secrets'],
        providers: [
          { aescbc: { keys: [{ name: 'k1', secret: 'MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=' }] } },
          { identity: {} },
        ],
      },
    ],
  },
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-encryption-config-yaml-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(CASES.map((recorded) => [recorded.name, recorded] as const))('%s', (_, recorded) => {
  const path = writeRecordedCase(dir, recorded);
  const read = () => loadEncryptionConfiguration(path, false);
  if (recorded.refusal === null) {
    expect(READINGS[recorded.name]).toBeDefined();
    expect(read()).toMatchObject(READINGS[recorded.name] as object);
  } else expect(read).toThrow(readerRefusal(recorded.refusal, { prefix: '', path, dir }));
});
