/**
 * A custom resource's apiVersion, kind and metadata in a body or a patch's result, answered as
 * kube-apiserver 1.34.4 answered them (fixtures/custom-resource-type-meta.json, recorded from
 * it). A custom resource is decoded unstructured, so it keeps the kind and version it names:
 * without a kind the body cannot be read (400), a version other than the URL's is a 400, and
 * another kind of that version (or a patch changing kind or version) reaches validation, whose
 * first check refuses it alone (422, named by the kind the object claims). Its metadata is the
 * one part typed, as an ObjectMeta of its own: a mismatch is the decoder's 400 and unknown
 * members come before the schema's unknown fields.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import type { CustomResourceDefinition } from '../../../server/apiextensions/crd-types';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

interface Case {
  readonly name: string;
  readonly method: string;
  /** After the collection's path: `?query` for a create, `/name?query` for a patch. */
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
  readonly status: number;
  readonly reason?: string;
  readonly message?: string;
  /** `<field>: <message>`, as the reference's Status listed them. */
  readonly causes?: readonly string[];
  readonly warnings: readonly string[];
}

const FIXTURE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'custom-resource-type-meta.json'), 'utf8')) as {
  crd: CustomResourceDefinition;
  objects: readonly object[];
  cases: readonly Case[];
};
const { crd } = FIXTURE;
const COLLECTION = `/apis/${crd.spec.group}/v1/namespaces/default/${crd.spec.names.plural}`;

let testStore: TestStore;
let api: ServedApi;

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor, {
    registry: new ResourceTypeRegistry({ types: [...BUILTIN_TYPES, customResourceType(crd)] }),
  });
  for (const object of FIXTURE.objects) {
    const response = await fetch(`${api.base}${COLLECTION}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(object),
    });
    expect(response.status).toBe(201);
  }
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

test.each(FIXTURE.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const response = await fetch(`${api.base}${COLLECTION}${c.path}`, {
    method: c.method,
    headers: { 'content-type': c.contentType },
    body: c.body,
  });
  const answer = (await response.json()) as {
    kind?: string;
    reason?: string;
    message?: string;
    details?: { causes?: { field?: string; message: string }[] };
  };
  const warning = response.headers.get('warning');
  expect({
    status: response.status,
    ...(answer.kind === 'Status'
      ? {
          reason: answer.reason,
          message: answer.message,
          causes: (answer.details?.causes ?? []).map((cause) => `${cause.field ?? ''}: ${cause.message}`),
        }
      : {}),
    warnings: warning === null ? [] : [warning],
  }).toEqual({
    status: c.status,
    ...(c.reason === undefined ? {} : { reason: c.reason, message: c.message, causes: c.causes }),
    warnings: c.warnings,
  });
});
