/**
 * Owner references sent twice, as kube-apiserver 1.34.4 answers them (recorded with
 * tools/reference/record-answers.ts on 2026-12-04): the server keeps one of each reference equal
 * to an earlier one and warns with the UIDs it dropped; a create or a PUT says "duplicate
 * entries", a patch, deduplicated only after mutating admission, says so. A reference of a UID
 * already seen with other content stays. The owners here exist, so that the garbage collector
 * leaves the dependents alone.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

const warningOf = (duplicates: string, afterAdmission: boolean) =>
  `299 - ".metadata.ownerReferences contains duplicate entries${afterAdmission ? ' after mutating admission happens' : ''}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${duplicates}"`;

interface Reference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

let first: Reference;
let second: Reference;

async function send(method: string, path: string, body: unknown, contentType = 'application/json') {
  const answer = await server.request(method, path, {
    body: JSON.stringify(body),
    headers: { 'content-type': contentType },
  });
  const warnings = answer.headers.warning;
  return {
    status: answer.status,
    references: (answer.json<{ metadata?: { ownerReferences?: Reference[] } }>().metadata?.ownerReferences ?? []).map(
      (reference) => reference.uid,
    ),
    warnings: warnings === undefined ? [] : Array.isArray(warnings) ? warnings : [warnings],
  };
}

async function owner(name: string): Promise<Reference> {
  const created = await server.request('POST', CONFIGMAPS, {
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
    headers: { 'content-type': 'application/json' },
  });
  const uid = created.json<{ metadata: { uid: string } }>().metadata.uid;
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid };
}

const dependent = (name: string, references: Reference[]) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ownerReferences: references },
});

const server = inProcessServerForSuite();

beforeAll(async () => {
  first = await owner('owner-1');
  second = await owner('owner-2');
}, 60_000);
test('a create keeps one of each repeated reference and warns once with the UIDs dropped', async () => {
  const created = await send('POST', CONFIGMAPS, dependent('d1', [first, second, first, second, first]));
  expect(created).toEqual({
    status: 201,
    references: [first.uid, second.uid],
    warnings: [warningOf(`${first.uid}, ${second.uid}, ${first.uid}`, false)],
  });
});

test('a reference of a UID already seen with other content stays', async () => {
  const renamed = { ...first, name: 'other' };
  const created = await send('POST', CONFIGMAPS, dependent('d2', [first, renamed]));
  expect(created).toEqual({ status: 201, references: [first.uid, first.uid], warnings: [] });
});

test('a PUT deduplicates before admission; a patch after it, and says so', async () => {
  await send('POST', CONFIGMAPS, dependent('d3', [first]));
  const replaced = await send('PUT', `${CONFIGMAPS}/d3`, dependent('d3', [second, second]));
  expect(replaced).toEqual({ status: 200, references: [second.uid], warnings: [warningOf(second.uid, false)] });
  const patched = await send(
    'PATCH',
    `${CONFIGMAPS}/d3`,
    { metadata: { ownerReferences: [first, first] } },
    'application/merge-patch+json',
  );
  expect(patched).toEqual({ status: 200, references: [first.uid], warnings: [warningOf(first.uid, true)] });
  const appended = await send(
    'PATCH',
    `${CONFIGMAPS}/d3`,
    [{ op: 'add', path: '/metadata/ownerReferences/-', value: first }],
    'application/json-patch+json',
  );
  expect(appended).toEqual({ status: 200, references: [first.uid], warnings: [warningOf(first.uid, true)] });
});
