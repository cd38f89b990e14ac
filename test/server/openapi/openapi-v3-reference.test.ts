/**
 * capstan's OpenAPI v3 documents against the reference's. fixtures/openapi-v3-protobuf holds the
 * JSON documents a kube-apiserver 1.34.4 served for api/v1, apps/v1 and the group of two CRDs
 * (recorded.json says how); capstan serves the same group-versions with the same CRDs, and every
 * difference is reported by its JSON path. fixtures/openapi-v3-index.json holds the keys of the
 * reference's `/openapi/v3` index and its documents of the paths outside the group-versions.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { differences } from '../../helpers/json-differences';
import { startServer, type TestServer } from '../../helpers/server';
import { waitFor } from '../../helpers/wait-for';
import { createRecordedCrds } from './recorded-crds';

const FIXTURES = join(__dirname, 'fixtures', 'openapi-v3-protobuf');

const recordedProtobuf = JSON.parse(readFileSync(join(FIXTURES, 'recorded.json'), 'utf8')) as {
  readonly accept: string;
  readonly documents: Record<string, { json: string; protobufLength: number; protobufSha256: string }>;
};

interface RecordedIndex {
  readonly indexKeys: readonly string[];
  /** Key → the document's body as the reference served it. */
  readonly documents: Readonly<Record<string, string>>;
}
const recordedIndex = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'openapi-v3-index.json'), 'utf8'),
) as RecordedIndex;

describe('OpenAPI v3 documents equal to the reference', () => {
  // A whole server as a process: the kinds it adds at start-up (ComponentStatus, the reviews,
  // ServiceAccount's token subresource) are in its documents as in the reference's.
  let server: TestServer;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const answer = await server.request('GET', path, { headers });
    expect(answer.status).toBe(200);
    return answer;
  };

  beforeAll(async () => {
    server = await startServer();
    await createRecordedCrds(server);
    await waitFor('the CRDs in the OpenAPI index', async () => {
      const index = await server.request('GET', '/openapi/v3');
      return index.body.includes('apis/proto.example.com/v1') ? true : undefined;
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  test.each(Object.entries(recordedProtobuf.documents))(
    "%s: the reference's JSON, byte for byte, and so its protobuf",
    async (path, recorded) => {
      const reference = gunzipSync(readFileSync(join(FIXTURES, recorded.json))).toString('utf8');
      const { body } = await get(path);
      // By JSON path first, to say what differs; then the bytes, which member order and escapes change.
      expect(differences(JSON.parse(body), JSON.parse(reference))).toEqual([]);
      expect(body).toBe(reference);
      const protobuf = (await get(path, { accept: recordedProtobuf.accept })).bytes;
      expect(protobuf.length).toBe(recorded.protobufLength);
      expect(createHash('sha256').update(protobuf).digest('hex')).toBe(recorded.protobufSha256);
    },
  );

  test('the index lists the documents the reference lists', async () => {
    const served = JSON.parse((await get('/openapi/v3')).body) as { paths: Record<string, unknown> };
    // The reference's index was recorded before the CRDs were made.
    expect(Object.keys(served.paths)).toEqual([...recordedIndex.indexKeys, 'apis/proto.example.com/v1'].sort());
  });

  test.each(Object.keys(recordedIndex.documents))('%s: the document outside the group-versions', async (key) => {
    const { body } = await get(`/openapi/v3/${key}`);
    const served = JSON.parse(body) as unknown;
    expect(differences(served, JSON.parse(recordedIndex.documents[key]))).toEqual([]);
    expect(body).toBe(recordedIndex.documents[key]);
  });
});
