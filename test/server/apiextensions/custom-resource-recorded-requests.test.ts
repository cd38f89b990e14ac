/**
 * Requests on custom resources, answered as kube-apiserver 1.34.4 answered them (each fixture
 * recorded from it, the CRDs it was recorded with included):
 *
 * - custom-resource-metadata-types.json: the reference reads an unstructured object's metadata
 *   into ObjectMeta before pruning, with or without a schema: a member of the wrong type is a
 *   400 naming the kind on create, and a 422 on the `patch` when a merge or JSON patch produces
 *   it. A 422's value (the whole patched object, with its uid and times) is left out of the
 *   fixture; the decoder's error after it is kept.
 * - custom-resource-patch-types.json: a custom resource's endpoints (the object, its status and
 *   scale) take no strategic merge patch, and the `Content-Type` counts as sent up to its first
 *   `;`: anything else is a 415 listing the types they take, before options, body or object.
 * - custom-resource-patched-type-meta.json: a JSON or merge patch that leaves the object without a kind
 *   is a 422 on the `patch`, whose error quotes the patched object again (kept as a placeholder).
 * - custom-resource-scale-paths.json: objects stored through a version without the scale
 *   subresource, read and written through one with it. A replicas path holding no int64, or a
 *   selector path no string, fails the Scale's reading (the reference's 500, its accessor's
 *   text) and every write's validation (422); a count past int32 is shown wrapped, as Go's
 *   int32() keeps it, and refused on write; absent spec replicas cannot be shown (500) and must
 *   be set by a write of the Scale (400). Writes are dry runs, so the objects stay as stored.
 * - custom-resource-type-meta-types.json: a body's apiVersion and kind are read first, as strings
 *   (names matched in any case): another JSON type there is the decoder's 400 for a create or
 *   PUT, custom kind or built-in, JSON or YAML, and a JSON or merge patch that leaves one is the
 *   422 on the `patch`, on a custom resource's status too, where another kind or group is no
 *   error (its status strategy keeps the stored ones).
 * - custom-resource-type-meta.json: a custom resource keeps the kind and version it names, being
 *   decoded unstructured: without a kind the body cannot be read (400), a version other than the
 *   URL's is a 400, another kind of that version (or a patch changing kind or version) reaches
 *   validation, whose first check refuses it alone (422, named by the kind the object claims).
 *   Its metadata is the one part typed, as an ObjectMeta of its own: a mismatch is the decoder's
 *   400, and unknown members are warned of before the schema's unknown fields.
 * - custom-resource-status-schema.json: a status write validates the status alone against its
 *   schema: the messages name members from the status (`inner.n in body`), the field paths are
 *   the object's (`status.inner.n`); lists and rules over the whole object; a refusal names the
 *   kind the write named, which the stored object keeps.
 * - custom-resource-keyword-order.json: a value failing several schema keywords, and a CRD
 *   default doing so, in the order of kube-openapi's validators: the type, then every check that
 *   applies to the value's own JSON type (a string's first failing length or pattern, its
 *   format, a number's factor and bounds, a list's items before its bounds, the enum, an
 *   object's bounds, members, then required ones), a set's duplicates after them (not for a
 *   default), and the line saying the rules were not run. Only cases whose order is not left
 *   to Go's map iteration (several failing members of one object) are kept.
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
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
  readonly status: number;
  readonly reason: string;
  /** The Status message, when it lists no causes; neither for an answer that is no Status. */
  readonly message?: string;
  /** `<field>: <message>`, the `patch` cause without the value it names. */
  readonly causes?: readonly string[];
  /** The spec and status of a Scale answered. */
  readonly scale?: { readonly spec: unknown; readonly status: unknown };
  /** The `Warning` header, when the fixture recorded it (none: an empty list). */
  readonly warnings?: readonly string[];
}

/** An object the fixture stores before its cases run. */
interface StoredObject {
  readonly path: string;
  readonly body: unknown;
}

const FIXTURES = [
  'custom-resource-metadata-types.json',
  'custom-resource-patch-types.json',
  'custom-resource-patched-type-meta.json',
  'custom-resource-scale-paths.json',
  'custom-resource-keyword-order.json',
  'custom-resource-type-meta.json',
  'custom-resource-type-meta-types.json',
  'custom-resource-status-schema.json',
].map(
  (file) =>
    JSON.parse(readFileSync(join(__dirname, 'fixtures', file), 'utf8')) as {
      crds: CustomResourceDefinition[];
      objects?: StoredObject[];
      cases: Case[];
    },
);
const CRDS = FIXTURES.flatMap((fixture) => fixture.crds);
/** A fixture's own objects, or else one object named `live` of each of its kinds, for its cases to patch. */
const OBJECTS = FIXTURES.flatMap(
  (fixture) =>
    fixture.objects ??
    fixture.crds.map((crd): StoredObject => {
      const { kind, plural } = crd.spec.names;
      return {
        path: `/apis/${crd.spec.group}/v1/namespaces/default/${plural}`,
        body: { apiVersion: `${crd.spec.group}/v1`, kind, metadata: { name: 'live' }, spec: { size: 1 } },
      };
    }),
);
const CASES = FIXTURES.flatMap((fixture) => fixture.cases);

let testStore: TestStore;
let api: ServedApi;

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor, {
    registry: new ResourceTypeRegistry({
      types: [...BUILTIN_TYPES, ...CRDS.map((crd) => customResourceType(crd))],
    }),
  });
  for (const { path, body } of OBJECTS) {
    const response = await fetch(`${api.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
  }
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

/** A `patch` cause without the patched object it shows (its uid and times differ from run to run). */
function withoutPatchedObject(message: string): string {
  return message
    .replace(/^Invalid value: "(?:[^"\\]|\\.)*": /, '')
    .replace(/ in '\{.*\}'$/, " in '<the patched object>'");
}

function warningsOf(response: Response): string[] {
  const warning = response.headers.get('warning');
  return warning === null ? [] : [warning];
}

test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const response = await fetch(`${api.base}${c.path}`, {
    method: c.method,
    headers: { 'content-type': c.contentType },
    body: c.method === 'GET' ? undefined : c.body,
  });
  const status = (await response.json()) as {
    reason?: string;
    message?: string;
    details?: { causes?: { field: string; message: string }[] };
    spec?: unknown;
    status?: unknown;
  };
  const causes = (status.details?.causes ?? []).map(
    ({ field, message }) => `${field}: ${field === 'patch' ? withoutPatchedObject(message) : message}`,
  );
  expect({
    status: response.status,
    reason: status.reason ?? '',
    ...(c.message !== undefined ? { message: status.message } : {}),
    ...(c.causes !== undefined ? { causes } : {}),
    ...(c.scale !== undefined ? { scale: { spec: status.spec, status: status.status } } : {}),
    ...(c.warnings !== undefined ? { warnings: warningsOf(response) } : {}),
  }).toEqual({
    status: c.status,
    reason: c.reason,
    message: c.message,
    causes: c.causes,
    scale: c.scale,
    warnings: c.warnings,
  });
});
