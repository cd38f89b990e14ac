/**
 * capstan's `/openapi/v2` against the reference's. fixtures/openapi-v2 holds the document a
 * kube-apiserver 1.34.4 served with the two CRDs of the v3 test (recorded.json says how);
 * capstan serves it with the same CRDs, and every difference is reported by its JSON path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { differences } from '../../helpers/json-differences';
import { startServer, type TestServer } from '../../helpers/server';
import { waitFor } from '../../helpers/wait-for';

const FIXTURES = join(__dirname, 'fixtures', 'openapi-v2');
const CRD_FIXTURES = join(__dirname, 'fixtures', 'openapi-v3-protobuf');
const recorded = JSON.parse(readFileSync(join(FIXTURES, 'recorded.json'), 'utf8')) as { readonly json: string };

/**
 * The definitions' members that still differ, from the field descriptions
 * (tools/descriptions) rather than from the v2 writer: the reference's descriptions of these
 * resource.k8s.io/v1 fields hold one more newline before their "Possible enum values", where
 * the field's comment ends in an empty line before its markers.
 */
const REMAINING = [
  'changed /definitions/io.k8s.api.resource.v1.DeviceTaint/properties/effect/description',
  'changed /definitions/io.k8s.api.resource.v1.DeviceToleration/properties/effect/description',
  'changed /definitions/io.k8s.api.resource.v1.DeviceToleration/properties/operator/description',
];

/** `document` with the member at `path` (a path of `differences`) taken from `from`, or removed where `from` lacks it. */
function withMemberOf(document: unknown, from: unknown, path: string): void {
  const keys = path.split('/').slice(1);
  let into = document as Record<string, unknown>;
  let source = from as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    into = into[key] as Record<string, unknown>;
    source = source[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1];
  if (last in source) into[last] = source[last];
  else delete into[last];
}

describe('OpenAPI v2 document equal to the reference', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    for (const file of ['widgets-crd.json', 'gadgets-crd.json']) {
      const created = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: readFileSync(join(CRD_FIXTURES, file), 'utf8'),
        headers: { 'content-type': 'application/json' },
      });
      expect(created.status).toBe(201);
    }
    await waitFor('both CRDs in /openapi/v2', async () => {
      const { body } = await server.request('GET', '/openapi/v2');
      return body.includes('"/apis/proto.example.com/v1/gadgets"') &&
        body.includes('"/apis/proto.example.com/v1/widgets"')
        ? true
        : undefined;
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  test("the reference's document, byte for byte, apart from the named definitions' members", async () => {
    const referenceText = gunzipSync(readFileSync(join(FIXTURES, recorded.json))).toString('utf8');
    const answer = await server.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } });
    expect(answer.status).toBe(200);
    const served = JSON.parse(answer.body) as unknown;
    const reference = JSON.parse(referenceText) as unknown;
    // The reference's v2 encoder escapes nothing JSON.stringify does not: its bytes read back and written again.
    expect(JSON.stringify(reference)).toBe(referenceText);
    // By JSON path first, to say what differs.
    expect(differences(served, reference)).toEqual(REMAINING);
    // Then the bytes, which member order and escapes change: the reference's, with the
    // remaining members as capstan serves them, written as the reference writes its v2 document.
    for (const difference of REMAINING) withMemberOf(reference, served, difference.slice(difference.indexOf(' ') + 1));
    expect(answer.body).toBe(JSON.stringify(reference));
  });
});
