/**
 * A custom resource's numbers against its schema's maximum, minimum and multipleOf, answered as
 * kube-apiserver 1.34.4 answered the same bodies (fixtures/schema-number-values.json, recorded
 * from it). Its decoder holds a whole number as an int64 and any other as a float64, and its
 * validator judges each in that type: an int64 against the bounds and factor cut to int64 (so
 * 1 passes a minimum of 1.5, a factor of 0.25 becomes 0, and a bound beyond int64 becomes its
 * least value), a float64 against them as they are, with the error's values printed by Go's
 * `%v` (`1e+06`, `1.5e-07`, `1e+20` for a whole number beyond int64). multipleOf is judged
 * first, then minimum, then maximum.
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
  /** The CRD whose kind the body is. */
  readonly crd: string;
  /** The body as sent: the text of its numbers is what the reference's decoder read. */
  readonly body: string;
  readonly status: number;
  /** `<field>: <message>`, as the reference's Status listed them. */
  readonly causes: readonly string[];
}

const FIXTURE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'schema-number-values.json'), 'utf8')) as {
  crds: CustomResourceDefinition[];
  cases: Case[];
};
const CRDS = new Map(FIXTURE.crds.map((crd) => [crd.metadata.name, crd]));

let testStore: TestStore;
let api: ServedApi;

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor, {
    registry: new ResourceTypeRegistry({
      types: [...BUILTIN_TYPES, ...FIXTURE.crds.map((crd) => customResourceType(crd))],
    }),
  });
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

test.each(FIXTURE.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const crd = CRDS.get(c.crd);
  if (crd === undefined) throw new Error(`no CRD ${c.crd} in the fixture`);
  const response = await fetch(
    `${api.base}/apis/${crd.spec.group}/v1/namespaces/default/${crd.spec.names.plural}?dryRun=All`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: c.body },
  );
  const status = (await response.json()) as { details?: { causes?: { field: string; message: string }[] } };
  expect({
    status: response.status,
    causes: (status.details?.causes ?? []).map((cause) => `${cause.field}: ${cause.message}`),
  }).toEqual({ status: c.status, causes: c.causes });
});
