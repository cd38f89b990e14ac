/**
 * CRDs that kube-apiserver 1.34 refuses or accepts when their schema is written, each sent to a
 * whole in-process replica (dry run): the same errors, word for word, and the same warnings.
 * The cases and the reference's answers are in fixtures/structural-schemas.json, recorded by
 * sending each CRD to the reference (`kubectl create --dry-run=server`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

interface Case {
  readonly name: string;
  readonly crd: object;
  readonly reference: { readonly errors: readonly string[]; readonly warnings: readonly string[] };
}

const CASES = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'structural-schemas.json'), 'utf8')) as Case[];

const server = inProcessServerForSuite();

test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, { crd, reference }) => {
  const answer = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', {
    body: JSON.stringify(crd),
    headers: { 'content-type': 'application/json' },
  });
  const header = answer.headers.warning;
  const values = Array.isArray(header) ? header : header ? header.split(/,\s*(?=299 )/) : [];
  const warnings = values.map((value) => JSON.parse(value.replace(/^299 - /, '')) as string);
  expect(warnings).toEqual(reference.warnings);
  if (reference.errors.length === 0) {
    expect(answer.status).toBe(201);
    return;
  }
  expect(answer.status).toBe(422);
  const causes = (
    (answer.json() as { details: { causes: unknown } }).details.causes as Array<{ field: string; message: string }>
  )
    .map((cause) => `${cause.field}: ${cause.message}`)
    .sort();
  expect(causes).toEqual(reference.errors);
});
