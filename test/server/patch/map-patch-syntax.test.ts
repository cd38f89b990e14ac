/**
 * Merge and strategic merge patches that are no JSON object, answered as kube-apiserver 1.34.4
 * answered them (fixtures/map-patch-syntax.json, recorded from it against the object in the
 * fixture): Go's words for the syntax error or the wrong type, prefixed `error decoding patch:`
 * where the handler decodes a merge patch itself (fields validated), `Invalid JSON Patch` alone
 * where only the merge library reads it, and bare for a strategic merge.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

interface Case {
  readonly name: string;
  readonly contentType: string;
  readonly query: string;
  readonly body: string;
  readonly status: number;
  readonly reason: string;
  readonly message: string;
}

const FIXTURE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'map-patch-syntax.json'), 'utf8')) as {
  object: { metadata: { name: string }; data: Record<string, string> };
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
  const response = await fetch(`${api.base}${COLLECTION}/${FIXTURE.object.metadata.name}${c.query}`, {
    method: 'PATCH',
    headers: { 'content-type': c.contentType },
    body: c.body,
  });
  const status = (await response.json()) as { reason?: string; message?: string };
  expect({ status: response.status, reason: status.reason, message: status.message }).toEqual({
    status: c.status,
    reason: c.reason,
    message: c.message,
  });
});
