/**
 * An AuthenticationConfiguration is read as the reference's strict decoder reads it, through
 * sigs.k8s.io/yaml: each case of fixtures/authentication-config-yaml.reference.json was given
 * to kube-apiserver v1.34.4 as --authentication-config. Its refusal at start, the whole line
 * with the file's path, is what parseAuthenticationConfig says; a file it started with is read here
 * as the reference reads it (`enabled: yes` true).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAuthenticationConfig } from '../../../server/authn/authentication-config';
import { readerRefusal, recordedConfigCases, writeRecordedCase } from '../../helpers/recorded-config-cases';

const CASES = recordedConfigCases(join(__dirname, 'fixtures', 'authentication-config-yaml.reference.json'));

/** What each file the reference started with says, as its Go types hold it. */
const READINGS: Readonly<Record<string, unknown>> = {
  'anonymous enabled: yes': { anonymous: { enabled: true, paths: ['/livez'] } },
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-authn-config-yaml-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(CASES.map((recorded) => [recorded.name, recorded] as const))('%s', (_, recorded) => {
  const path = writeRecordedCase(dir, recorded);
  const read = () => parseAuthenticationConfig(readFileSync(path, 'utf8'), { path, serviceAccountIssuers: [] });
  if (recorded.refusal === null) {
    expect(READINGS[recorded.name]).toBeDefined();
    expect(read()).toMatchObject(READINGS[recorded.name] as object);
  } else
    expect(read).toThrow(
      readerRefusal(recorded.refusal, {
        prefix: '',
        path,
        dir,
      }),
    );
});
