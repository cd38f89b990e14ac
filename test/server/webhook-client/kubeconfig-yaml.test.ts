/**
 * A webhook kubeconfig is read as client-go's loader reads it, through sigs.k8s.io/yaml: each
 * case of fixtures/kubeconfig-yaml.reference.json was given to kube-apiserver v1.34.4 as its
 * authorization webhook's kubeconfig, and its refusal at start is what capstan's reader says
 * (the reference's `invalid authorization config: ` is the flag's, not the reader's). Where
 * the reference refused the case's CA bytes as no PEM, it had taken the CA and kept verifying.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWebhookKubeconfig } from '../../../server/webhook-client/kubeconfig';
import { readerRefusal, recordedConfigCases, writeRecordedCase } from '../../helpers/recorded-config-cases';

const CASES = recordedConfigCases(join(__dirname, 'fixtures', 'kubeconfig-yaml.reference.json'));
const CA_NOT_PEM = 'unable to load root certificates: unable to parse bytes as PEM block';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-kubeconfig-yaml-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(CASES.map((recorded) => [recorded.name, recorded] as const))('%s', (_, recorded) => {
  const path = writeRecordedCase(dir, recorded);
  const refusal = readerRefusal(String(recorded.refusal), { prefix: 'invalid authorization config: ', path, dir });
  if (refusal === CA_NOT_PEM)
    expect(readWebhookKubeconfig(path)).toMatchObject({ ca: 'CA', insecureSkipTLSVerify: false });
  else expect(() => readWebhookKubeconfig(path)).toThrow(refusal);
});
