/**
 * The two CRDs the reference's OpenAPI documents were recorded with (fixtures/openapi-v3-protobuf),
 * created on a capstan test server so that its documents can be compared with those recordings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/server';

const CRD_FILES = ['widgets-crd.json', 'gadgets-crd.json'];
const CRD_FIXTURES = join(__dirname, 'fixtures', 'openapi-v3-protobuf');

/** Creates the recorded CRDs on `server`, failing unless each is created. */
export async function createRecordedCrds(server: TestServer): Promise<void> {
  for (const file of CRD_FILES) {
    const created = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: readFileSync(join(CRD_FIXTURES, file), 'utf8'),
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
  }
}
