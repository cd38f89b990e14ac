/**
 * PATCH requests recorded from kube-apiserver 1.34.4 against one object, replayed against the
 * in-process resource API (in-process-api.ts). A fixture is `{ object, cases }`: the object the
 * recorder created, then the patches it sent to it, each case named. The object is created
 * before the cases run, every case is a test of its own, and the test file says what of the
 * answer it compares.
 */
import { readFileSync } from 'node:fs';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from './in-process-api';

export interface RecordedPatchFixture<Obj, Case> {
  readonly object: Obj;
  readonly cases: readonly Case[];
}

/** The fixture's object as served. */
export interface PatchTarget {
  /** The object's URL, for reading it back. */
  readonly url: string;
  /** A PATCH of the object, `suffix` (a subresource, a query) appended to its URL. */
  patch(request: { readonly suffix?: string; readonly contentType: string; readonly body: string }): Promise<Response>;
}

/**
 * Registers the serving of the fixture's object (before all) and one test per recorded case,
 * which `replay` runs against the object; returns the fixture.
 */
export function replayRecordedPatches<
  Obj extends { readonly metadata: { readonly name: string } },
  Case extends { readonly name: string },
>(options: {
  /** The fixture file's path. */
  readonly fixture: string;
  /** The path of the object's collection, e.g. `/api/v1/namespaces/default/configmaps`. */
  readonly collection: string;
  /** Headers of the request that creates the object, beside its content type. */
  readonly createHeaders?: Readonly<Record<string, string>>;
  readonly replay: (recorded: Case, target: PatchTarget) => Promise<void>;
}): RecordedPatchFixture<Obj, Case> {
  const fixture = JSON.parse(readFileSync(options.fixture, 'utf8')) as RecordedPatchFixture<Obj, Case>;
  let testStore: TestStore;
  let api: ServedApi;
  let target: PatchTarget;

  beforeAll(async () => {
    testStore = await openTestStore();
    api = await serveResourceApi(testStore.storageFor);
    const created = await fetch(`${api.base}${options.collection}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.createHeaders },
      body: JSON.stringify(fixture.object),
    });
    expect(created.status).toBe(201);
    const url = `${api.base}${options.collection}/${fixture.object.metadata.name}`;
    target = {
      url,
      patch: ({ suffix = '', contentType, body }) =>
        fetch(`${url}${suffix}`, { method: 'PATCH', headers: { 'content-type': contentType }, body }),
    };
  });

  afterAll(async () => {
    await api.close();
    await testStore.close();
  });

  test.each(fixture.cases.map((recorded) => [recorded.name, recorded] as const))('%s', (_name, recorded) =>
    options.replay(recorded, target),
  );
  return fixture;
}

/** Expects the answer's code, and its Status's reason and message, to be the recorded ones. */
export async function expectRecordedStatus(
  response: Response,
  recorded: { readonly status: number; readonly reason: string; readonly message: string },
): Promise<void> {
  const status = (await response.json()) as { reason?: string; message?: string };
  expect({ status: response.status, reason: status.reason, message: status.message }).toEqual({
    status: recorded.status,
    reason: recorded.reason,
    message: recorded.message,
  });
}
