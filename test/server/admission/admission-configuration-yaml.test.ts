/**
 * An AdmissionConfiguration is read as the reference's strict decoder reads it, through
 * sigs.k8s.io/yaml: each case of fixtures/admission-configuration-yaml.reference.json was given
 * to kube-apiserver v1.34.4 as --admission-control-config-file. Its refusal at start, past the
 * options' `failed to apply admission: `, is what readAdmissionConfiguration says; a file it
 * started with configures the plugin here as it did there (`defaultAllow: yes` true, TTLs of
 * `0x32` and `0o62` seconds, a backoff of `1_000` milliseconds).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAdmissionConfiguration } from '../../../server/admission/admission-configuration';
import { imagePolicyConfiguration } from '../../../server/admission/plugins/image-policy-webhook';
import { readerRefusal, recordedConfigCases, writeRecordedCase } from '../../helpers/recorded-config-cases';

const CASES = recordedConfigCases(join(__dirname, 'fixtures', 'admission-configuration-yaml.reference.json'));

/** The plugin configured by each file the reference started with, as its Go types hold it. */
const READINGS: Readonly<Record<string, unknown>> = {
  'ImagePolicyWebhook with defaultAllow: yes and hexadecimal TTLs': {
    allowTtlMs: 50_000,
    denyTtlMs: 50_000,
    retryBackoffMs: 1_000,
    defaultAllow: true,
  },
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-admission-config-yaml-'));
  // The webhook kubeconfig the recorded ImagePolicyWebhook configuration names.
  writeFileSync(
    join(dir, 'hook.kubeconfig'),
    JSON.stringify({
      clusters: [{ name: 'hook', cluster: { server: 'https://127.0.0.1:9443/authorize' } }],
      contexts: [{ name: 'c', context: { cluster: 'hook', user: 'me' } }],
      'current-context': 'c',
      users: [{ name: 'me', user: { token: 't' } }],
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(CASES.map((recorded) => [recorded.name, recorded] as const))('%s', (_, recorded) => {
  const path = writeRecordedCase(dir, recorded);
  if (recorded.refusal === null) {
    expect(READINGS[recorded.name]).toBeDefined();
    const configuration = readAdmissionConfiguration(path)('ImagePolicyWebhook');
    expect(imagePolicyConfiguration(configuration)).toMatchObject(READINGS[recorded.name] as object);
  } else
    expect(() => readAdmissionConfiguration(path)).toThrow(
      readerRefusal(recorded.refusal, { prefix: 'failed to apply admission: ', path, dir }),
    );
});
