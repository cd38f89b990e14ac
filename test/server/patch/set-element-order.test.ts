/**
 * Strategic merge patches with `$setElementOrder` (and their neighbours, `$deleteFromPrimitiveList`
 * and mixed list items) against a Deployment, answered as kube-apiserver 1.34.4 answered them
 * (fixtures/set-element-order.json, recorded from it with dryRun=All against the object in the
 * fixture). Its library's 400s are matched as they are; where it passes the library's error
 * through as a 500, capstan answers 400 with the same message; where the library panics (it
 * compares maps as scalars) and the reference drops the connection (recorded as status 0),
 * capstan answers 400. Patches it takes leave lists in the order it gave them. Directive keys
 * in a value the object lacks (or in a map a `$patch: replace` replaces) stay in it, as the
 * library leaves them, and are refused as the unknown fields or map keys they then are.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

interface Lists {
  readonly finalizers: string[];
  readonly containers: string[];
  readonly ports: number[];
}

interface Case {
  readonly name: string;
  /** More of the query after `dryRun=All`. */
  readonly query: string;
  readonly body: string;
  readonly status: number;
  readonly reason: string;
  readonly message: string;
  readonly patched?: Lists;
}

interface Deployment {
  metadata: { name: string; finalizers: string[] };
  spec: { template: { spec: { containers: { name: string; ports?: { containerPort: number }[] }[] } } };
}

const FIXTURE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'set-element-order.json'), 'utf8')) as {
  object: Deployment;
  cases: Case[];
};
const COLLECTION = '/apis/apps/v1/namespaces/default/deployments';

let testStore: TestStore;
let api: ServedApi;

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor, { registry: new ResourceTypeRegistry({ types: BUILTIN_TYPES }) });
  const created = await fetch(`${api.base}${COLLECTION}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(FIXTURE.object),
  });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

function listsOf(deployment: Deployment): Lists {
  const { containers } = deployment.spec.template.spec;
  return {
    finalizers: deployment.metadata.finalizers,
    containers: containers.map((container) => container.name),
    ports: (containers.find((container) => container.name === 'c1')?.ports ?? []).map((port) => port.containerPort),
  };
}

/** What capstan answers for the reference's answer: its client errors as they are, its failures as 400. */
function expectedOf(c: Case): { status: number; reason?: string; message?: string } {
  if (c.status === 0) return { status: 400, reason: 'BadRequest' };
  if (c.status >= 500) return { status: 400, reason: 'BadRequest', message: c.message };
  if (c.status >= 400) return { status: c.status, reason: c.reason, message: c.message };
  return { status: c.status };
}

test.each(FIXTURE.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const url = `${api.base}${COLLECTION}/${FIXTURE.object.metadata.name}`;
  const response = await fetch(`${url}?dryRun=All${c.query}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/strategic-merge-patch+json' },
    body: c.body,
  });
  const answer = (await response.json()) as { reason?: string; message?: string } & Deployment;
  const expected = expectedOf(c);
  expect({
    status: response.status,
    ...(expected.reason !== undefined && { reason: answer.reason }),
    ...(expected.message !== undefined && { message: answer.message }),
  }).toEqual(expected);
  if (c.patched !== undefined) expect(listsOf(answer)).toEqual(c.patched);
  const current = (await (await fetch(url)).json()) as Deployment;
  expect(listsOf(current)).toEqual(listsOf(FIXTURE.object));
});
