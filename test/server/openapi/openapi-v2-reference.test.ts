/**
 * capstan's `/openapi/v2` against the reference's. fixtures/openapi-v2 holds the document a
 * kube-apiserver 1.34.4 served with the two CRDs of the v3 test, and its protobuf form's length
 * and SHA-256 (recorded.json says how); capstan serves it with the same CRDs, and every
 * difference is reported by its JSON path.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { differences } from '../../helpers/json-differences';
import { startServer, type TestServer } from '../../helpers/server';
import { waitFor } from '../../helpers/wait-for';
import { createRecordedCrds } from './recorded-crds';

const FIXTURES = join(__dirname, 'fixtures', 'openapi-v2');
const recorded = JSON.parse(readFileSync(join(FIXTURES, 'recorded.json'), 'utf8')) as {
  readonly accept: string;
  readonly contentType: string;
  readonly json: string;
  readonly protobufLength: number;
  readonly protobufSha256: string;
};

describe('OpenAPI v2 document equal to the reference', () => {
  let server: TestServer;
  const get = async (headers: Record<string, string>) => {
    const answer = await server.request('GET', '/openapi/v2', { headers });
    expect(answer.status).toBe(200);
    return answer;
  };

  beforeAll(async () => {
    server = await startServer();
    await createRecordedCrds(server);
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

  test("the reference's JSON, byte for byte", async () => {
    const reference = gunzipSync(readFileSync(join(FIXTURES, recorded.json))).toString('utf8');
    const { body } = await get({ accept: 'application/json' });
    // By JSON path first, to say what differs; then the bytes, which member order and escapes change.
    expect(differences(JSON.parse(body), JSON.parse(reference))).toEqual([]);
    expect(body).toBe(reference);
  });

  test("the reference's protobuf, byte for byte", async () => {
    const answer = await get({ accept: recorded.accept });
    expect(answer.headers['content-type']).toBe(recorded.contentType);
    expect(answer.bytes.length).toBe(recorded.protobufLength);
    expect(createHash('sha256').update(answer.bytes).digest('hex')).toBe(recorded.protobufSha256);
  });
});
