/**
 * A webhook kubeconfig is read as client-go's loader reads it, through sigs.k8s.io/yaml: each
 * case of fixtures/kubeconfig-yaml.reference.json was given to kube-apiserver v1.34.4 as its
 * authorization webhook's kubeconfig, and its refusal at start is what capstan's reader says
 * (the reference's `invalid authorization config: ` is the flag's, not the reader's). Where
 * the reference refused the case's CA bytes as no PEM, it had taken the CA and kept verifying.
 * A syntax error is refused in the same words up to yaml.v2's `yaml: `; what follows is the
 * YAML library's own account of the error, which does not word it as yaml.v2's parser does.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWebhookKubeconfig } from '../../../server/webhook-client/kubeconfig';

interface RecordedCase {
  readonly name: string;
  readonly text: string;
  readonly refusal: string;
}

const RECORDED = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'kubeconfig-yaml.reference.json'), 'utf8')) as {
  cases: RecordedCase[];
};
const FLAG_PREFIX = 'invalid authorization config: ';
const CA_NOT_PEM = 'unable to load root certificates: unable to parse bytes as PEM block';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-kubeconfig-yaml-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(RECORDED.cases.map((recorded) => [recorded.name, recorded] as const))('%s', (_, recorded) => {
  const path = join(dir, 'kubeconfig.yaml');
  writeFileSync(path, recorded.text);
  expect(recorded.refusal.startsWith(FLAG_PREFIX)).toBe(true);
  const refusal = recorded.refusal.slice(FLAG_PREFIX.length).replaceAll('{FILE}', path);
  if (refusal === CA_NOT_PEM) {
    expect(readWebhookKubeconfig(path)).toMatchObject({ ca: 'CA', insecureSkipTLSVerify: false });
    return;
  }
  const syntax = /^(.*?: yaml: )line \d+: /.exec(refusal);
  expect(() => readWebhookKubeconfig(path)).toThrow(syntax === null ? refusal : syntax[1]);
});
