/**
 * YAML request bodies that yaml.v2 cannot read (bad indentation, unclosed quotes and brackets,
 * tabs, anchors, a document that is no mapping), answered in the words and at the lines
 * kube-apiserver 1.34.4 gave (fixtures/yaml-syntax-errors.reference.json): sigs.k8s.io/yaml
 * passes on yaml.v2's scanner and parser errors, which name the line where yaml.v2 met the
 * problem.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

interface Case {
  readonly name: string;
  readonly body: string;
  readonly code: number;
  readonly message: string;
}

const CASES = (
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'yaml-syntax-errors.reference.json'), 'utf8')) as {
    cases: Case[];
  }
).cases;

const server = inProcessServerForSuite([], 30_000);

test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const result = await server.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', {
    body: c.body,
    headers: { 'Content-Type': 'application/yaml' },
  });
  expect({ code: result.status, message: result.json<{ message?: string }>().message }).toEqual({
    code: c.code,
    message: c.message,
  });
});
