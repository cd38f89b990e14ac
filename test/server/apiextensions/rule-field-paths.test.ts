/**
 * Where a failed validation rule with a fieldPath is reported, answered as kube-apiserver
 * 1.34.4 answered the same body (fixtures/rule-field-paths.json, recorded from it): the path is
 * read step by step into the schema, `['name']` as a property, and a step into a map's
 * additionalProperties as a key (`labels[a.b]`), whether written `.x` or `['x']`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import type { CustomResourceDefinition } from '../../../server/apiextensions/crd-types';
import { type ServedApi, serveTypesOnTestStore } from '../../helpers/in-process-api';

const FIXTURE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'rule-field-paths.json'), 'utf8')) as {
  crd: CustomResourceDefinition;
  object: object;
  status: number;
  causes: readonly string[];
};

let api: ServedApi;

beforeAll(async () => {
  api = await serveTypesOnTestStore([customResourceType(FIXTURE.crd)]);
});

afterAll(() => api.close());

test('failed rules are reported at their fieldPath as the reference reads it', async () => {
  const { group, names } = FIXTURE.crd.spec;
  const response = await fetch(`${api.base}/apis/${group}/v1/namespaces/default/${names.plural}?dryRun=All`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(FIXTURE.object),
  });
  const status = (await response.json()) as { details?: { causes?: { field: string; message: string }[] } };
  expect({
    status: response.status,
    causes: (status.details?.causes ?? []).map((cause) => `${cause.field}: ${cause.message}`),
  }).toEqual({ status: FIXTURE.status, causes: FIXTURE.causes });
});
