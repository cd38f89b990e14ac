/**
 * JSON Patches a ConfigMap refuses, answered as kube-apiserver 1.34.4 answered them
 * (fixtures/json-patch-refusals.json, recorded from it against the object in the fixture): the
 * handler's own checks first (400 where an operation's `op`, `path` or `from` is no string,
 * unless fields go unvalidated; 413 past 10000 operations), then each failure of its JSON Patch
 * library (json-patch v4) as a 422 whose message names no detail. The object is unchanged after
 * every case, as it was on the reference.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

interface Case {
  readonly name: string;
  readonly query: string;
  readonly body: string;
  readonly status: number;
  readonly reason: string;
  readonly message: string;
}

const FIXTURE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'json-patch-refusals.json'), 'utf8')) as {
  object: { metadata: { name: string; finalizers: string[] }; data: Record<string, string> };
  cases: Case[];
};
const COLLECTION = '/api/v1/namespaces/default/configmaps';

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

test.each(FIXTURE.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const url = `${api.base}${COLLECTION}/${FIXTURE.object.metadata.name}`;
  const response = await fetch(`${url}${c.query}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json-patch+json' },
    body: c.body,
  });
  const status = (await response.json()) as { reason?: string; message?: string };
  expect({ status: response.status, reason: status.reason, message: status.message }).toEqual({
    status: c.status,
    reason: c.reason,
    message: c.message,
  });
  const current = (await (await fetch(url)).json()) as typeof FIXTURE.object;
  expect({ data: current.data, finalizers: current.metadata.finalizers }).toEqual({
    data: FIXTURE.object.data,
    finalizers: FIXTURE.object.metadata.finalizers,
  });
});
