/**
 * CRDs that kube-apiserver 1.34.4 refuses or accepts for rules outside their schema's
 * structure, each sent to a whole in-process replica (dry run): the same code, the same causes
 * in the same order, word for word, and the same warnings. The cases and the reference's
 * answers are in fixtures/crd-definition-rules.json, recorded by sending each CRD to it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

interface Case {
  readonly name: string;
  readonly crd: object;
  readonly reference: {
    readonly status: number;
    /** `<field>: <message>`, in the Status's order. */
    readonly causes: readonly string[];
    readonly warnings: readonly string[];
  };
}

const CASES = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'crd-definition-rules.json'), 'utf8')) as Case[];

const server = inProcessServerForSuite();

test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, { crd, reference }) => {
  const answer = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', {
    body: JSON.stringify(crd),
    headers: { 'content-type': 'application/json' },
  });
  const header = answer.headers.warning;
  const values = Array.isArray(header) ? header : header ? header.split(/,\s*(?=299 )/) : [];
  const causes =
    answer.status === 201
      ? []
      : ((answer.json() as { details?: { causes?: { field: string; message: string }[] } }).details?.causes ?? []).map(
          (cause) => `${cause.field}: ${cause.message}`,
        );
  expect({
    status: answer.status,
    causes,
    warnings: values.map((value) => JSON.parse(value.replace(/^299 - /, '')) as string),
  }).toEqual(reference);
});
