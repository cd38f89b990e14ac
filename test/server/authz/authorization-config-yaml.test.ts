/**
 * An AuthorizationConfiguration is read as the reference's strict decoder reads it, through
 * sigs.k8s.io/yaml: each case of fixtures/authorization-config-yaml.reference.json was given to
 * kube-apiserver v1.34.4 as --authorization-config. Its refusal at start is what
 * parseAuthorizationConfig says; a file it started with is read here as the reference reads it
 * (`no` and `off` false). A key after a merge that sets a merged key again is, to strict
 * decoding, a key set twice.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAuthorizationConfig } from '../../../server/authz/authorization-config';
import { readerRefusal, recordedConfigCases, writeRecordedCase } from '../../helpers/recorded-config-cases';

const CASES = recordedConfigCases(join(__dirname, 'fixtures', 'authorization-config-yaml.reference.json'));

/** What each file the reference started with says, as its Go types hold it. */
const READINGS: Readonly<Record<string, unknown>> = {
  'cache switches written no and off': {
    authorizers: [
      { type: 'Webhook', name: 'hook', webhook: { cacheAuthorizedRequests: false, cacheUnauthorizedRequests: false } },
      { type: 'RBAC', name: 'rbac' },
    ],
  },
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-authz-config-yaml-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(CASES.map((recorded) => [recorded.name, recorded] as const))('%s', (_, recorded) => {
  const path = writeRecordedCase(dir, recorded);
  const read = () => parseAuthorizationConfig(readFileSync(path, 'utf8'));
  if (recorded.refusal === null) {
    expect(READINGS[recorded.name]).toBeDefined();
    expect(read()).toMatchObject(READINGS[recorded.name] as object);
  } else expect(read).toThrow(readerRefusal(recorded.refusal, { prefix: '', path, dir }));
});
