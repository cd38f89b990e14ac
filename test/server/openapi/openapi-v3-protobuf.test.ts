/**
 * The protobuf form of OpenAPI v3 documents against the reference's bytes. fixtures/openapi-v3-protobuf
 * holds, for three documents a kube-apiserver 1.34.4 served (api/v1, apps/v1, and the group of the
 * two CRDs beside them, whose schemas carry defaults, enums, examples, int-or-string,
 * additionalProperties, x-kubernetes-* extensions and strings yaml.v3 must quote, fold or escape),
 * its JSON document and the length and SHA-256 of the protobuf it served for the same document.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { encodeOpenAPIV3Protobuf } from '../../../server/openapi/openapi-v3-protobuf';

const FIXTURES = join(__dirname, 'fixtures', 'openapi-v3-protobuf');

interface Recorded {
  readonly documents: Record<string, { json: string; protobufLength: number; protobufSha256: string }>;
}

const recorded = JSON.parse(readFileSync(join(FIXTURES, 'recorded.json'), 'utf8')) as Recorded;

describe('OpenAPI v3 documents in protobuf', () => {
  test.each(Object.entries(recorded.documents))('%s: the reference bytes for its JSON', (_path, document) => {
    const json = JSON.parse(gunzipSync(readFileSync(join(FIXTURES, document.json))).toString('utf8')) as object;
    const protobuf = encodeOpenAPIV3Protobuf(json);
    expect(protobuf.length).toBe(document.protobufLength);
    expect(createHash('sha256').update(protobuf).digest('hex')).toBe(document.protobufSha256);
  });
});
