/**
 * Custom resources whose numbers are written as `2e6`, `1.0`, `-0`, `1E2`, a whole number beyond
 * int64 or beyond float64, in JSON and in YAML bodies, created and read back as kube-apiserver
 * 1.34.4 answered them (fixtures/custom-resource-number-literals.json, recorded from it with the
 * spec as created and as read in JSON, as it was in etcd, and in YAML). Its decoder holds a literal
 * that is not an int64 as a float64, but its JSON encoder prints a whole float64 below 1e21 as the
 * integer it is, so `2e6` is stored and read as `2000000`, and `12345678901234567890` as the
 * float64 nearest it. A number too big for float64 is refused in JSON, while YAML keeps it as the
 * string it could not resolve.
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
  readonly plural: string;
  readonly format: 'json' | 'yaml';
  readonly body: string;
  readonly status: number;
  /** A refusal's message. */
  readonly message?: string;
  /** The spec of the created object's JSON. */
  readonly created?: unknown;
  /** The spec's text in a JSON GET (as it was in etcd too). */
  readonly readJson?: string;
  /** The spec's lines in a YAML GET. */
  readonly readYaml?: string;
}

const FIXTURE = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'custom-resource-number-literals.json'), 'utf8'),
) as { crds: CustomResourceDefinition[]; cases: Case[] };

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

/**
 * Each spec member's text in a JSON answer, by name: the numbers as written, whatever order the
 * members come in.
 */
function specMembers(json: string): Record<string, string> {
  const spec = json.replace(/^.*"spec":/s, '');
  return Object.fromEntries([...spec.matchAll(/"(\w+)":(\[[^\]]*\]|[^,}]*)/g)].map((m) => [m[1], m[2]]));
}

test.each(FIXTURE.cases.map((c) => [`${c.plural} ${c.format} ${c.name}`, c] as const))('%s', async (_name, c) => {
  const collection = `${api.base}/apis/example.com/v1/namespaces/default/${c.plural}`;
  const contentType = c.format === 'json' ? 'application/json' : 'application/yaml';
  const create = await fetch(collection, { method: 'POST', headers: { 'content-type': contentType }, body: c.body });
  const created = (await create.json()) as { spec?: unknown; message?: string };
  if (c.status !== 201) {
    expect({ status: create.status, message: created.message }).toEqual({ status: c.status, message: c.message });
    return;
  }
  const readJson = await (await fetch(`${collection}/${c.name}`)).text();
  const readYaml = await (await fetch(`${collection}/${c.name}`, { headers: { accept: 'application/yaml' } })).text();
  expect({
    status: create.status,
    created: created.spec,
    readJson: specMembers(readJson),
    readYaml: readYaml.replace(/^[\s\S]*\nspec:\n/, ''),
  }).toEqual({
    status: c.status,
    created: c.created,
    readJson: specMembers(`"spec":${c.readJson}`),
    readYaml: c.readYaml,
  });
});
