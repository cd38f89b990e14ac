/**
 * Query parameters whose escapes are no UTF-8 (`%FF`, a character cut short) answered as
 * kube-apiserver 1.34.4 answered them (fixtures/query-invalid-utf8.json, recorded from it): Go
 * keeps such a parameter's bytes, so a message quoting it with `%q` shows each stray byte as
 * `\xff`, while one that writes it as JSON (a named string type's Unsupported value) shows it
 * as the escape `\ufffd`, which is also how its JSON writes a stray byte anywhere else (a name
 * from the path in the Status's details).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

interface Case {
  readonly name: string;
  readonly method: string;
  /** The path and query as sent, escapes and all. */
  readonly path: string;
  readonly body?: unknown;
  readonly code: number;
  readonly reason: string;
  readonly message: string;
  /** The Status's `details.name`, where the case looks at it. */
  readonly detailsName?: string;
}

const CASES = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'query-invalid-utf8.json'), 'utf8'),
) as readonly Case[];

let testStore: TestStore;
let api: ServedApi;

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor);
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const response = await fetch(`${api.base}${c.path}`, {
    method: c.method,
    ...(c.body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.body) }),
  });
  const status = (await response.json()) as { reason?: string; message?: string; details?: { name?: string } };
  expect({
    code: response.status,
    reason: status.reason,
    message: status.message,
    ...(c.detailsName === undefined ? {} : { detailsName: status.details?.name }),
  }).toEqual({ code: c.code, reason: c.reason, message: c.message, detailsName: c.detailsName });
});
