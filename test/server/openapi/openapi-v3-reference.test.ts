/**
 * capstan's OpenAPI v3 documents against the reference's. fixtures/openapi-v3-protobuf holds the
 * JSON documents a kube-apiserver 1.34.4 served for api/v1, apps/v1 and the group of two CRDs
 * (recorded.json says how); capstan serves the same group-versions with the same CRDs, and every
 * difference is reported by its JSON path. fixtures/openapi-v3-index.json holds the keys of the
 * reference's `/openapi/v3` index and its documents of the paths outside the group-versions.
 */
import express from 'express';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { builtinRegistry } from '../../../server/builtin-types';
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import type { CustomResourceDefinition } from '../../../server/apiextensions/crd-types';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import { componentStatusKind } from '../../../server/componentstatus/component-status-kind';
import { mountOpenAPI } from '../../../server/openapi/mount-openapi';

const FIXTURES = join(__dirname, 'fixtures', 'openapi-v3-protobuf');

const recordedProtobuf = JSON.parse(readFileSync(join(FIXTURES, 'recorded.json'), 'utf8')) as {
  readonly accept: string;
  readonly documents: Record<string, { protobufLength: number; protobufSha256: string }>;
};

interface RecordedIndex {
  readonly indexKeys: readonly string[];
  /** Key → the document's body as the reference served it. */
  readonly documents: Readonly<Record<string, string>>;
}
const recordedIndex = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'openapi-v3-index.json'), 'utf8'),
) as RecordedIndex;

/** Each place where `served` and `reference` differ: `extra`, `missing` or `changed`, then the JSON path. */
/** Paths of the objects that have the same members in both but in another order (which changes the bytes). */
function memberOrderDifferences(served: unknown, reference: unknown, path = ''): string[] {
  if (served === null || reference === null || typeof served !== 'object' || typeof reference !== 'object') return [];
  const ours = served as Record<string, unknown>;
  const theirs = reference as Record<string, unknown>;
  const found: string[] = [];
  const keys = Object.keys(ours);
  const sameMembers = keys.length === Object.keys(theirs).length && keys.every((key) => key in theirs);
  if (!Array.isArray(ours) && sameMembers && keys.join('\n') !== Object.keys(theirs).join('\n')) found.push(path);
  for (const key of keys)
    if (key in theirs) found.push(...memberOrderDifferences(ours[key], theirs[key], `${path}/${key}`));
  return found;
}

function differences(served: unknown, reference: unknown, path = ''): string[] {
  const bothObjects = (a: unknown, b: unknown) =>
    a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects(served, reference)) return served === reference ? [] : [`changed ${path}`];
  if (Array.isArray(served) && Array.isArray(reference) && served.length !== reference.length)
    return [`changed ${path}`];
  const ours = served as Record<string, unknown>;
  const theirs = reference as Record<string, unknown>;
  const found: string[] = [];
  for (const key of Object.keys(ours)) {
    const child = `${path}/${key}`;
    if (!(key in theirs)) found.push(`extra ${child}`);
    else found.push(...differences(ours[key], theirs[key], child));
  }
  for (const key of Object.keys(theirs)) if (!(key in ours)) found.push(`missing ${path}/${key}`);
  return found;
}

describe('OpenAPI v3 documents equal to the reference', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    const crds = ['widgets-crd.json', 'gadgets-crd.json'].map(
      (file) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as CustomResourceDefinition,
    );
    const registry = new ResourceTypeRegistry({
      types: [
        ...builtinRegistry().all(),
        // The server adds it at start-up with its probes (control-plane.ts); its documents need no probe.
        componentStatusKind([]),
        ...crds.map((crd) => customResourceType(crd)),
      ],
    });
    mountOpenAPI(app, { registry });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test.each([
    ['api/v1', 'api_v1.json.gz', 7],
    ['apis/apps/v1', 'apis_apps_v1.json.gz', 2],
    ['apis/proto.example.com/v1', 'apis_proto.example.com_v1.json.gz', 0],
  ])('%s: differences from the reference, by JSON path', async (key, fixture, remaining) => {
    const reference = JSON.parse(gunzipSync(readFileSync(join(FIXTURES, fixture))).toString('utf8')) as unknown;
    const served = (await (await fetch(`${base}/openapi/v3/${key}`)).json()) as unknown;
    expect(differences(served, reference)).toHaveLength(remaining);
    expect(memberOrderDifferences(served, reference)).toEqual([]);
  });

  test('apis/proto.example.com/v1: the same bytes as the reference, and so the same protobuf', async () => {
    const reference = gunzipSync(readFileSync(join(FIXTURES, 'apis_proto.example.com_v1.json.gz'))).toString('utf8');
    const json = await fetch(`${base}/openapi/v3/apis/proto.example.com/v1`);
    expect(await json.text()).toBe(reference);
    const protobuf = await fetch(`${base}/openapi/v3/apis/proto.example.com/v1`, {
      headers: { accept: recordedProtobuf.accept },
    });
    const bytes = Buffer.from(await protobuf.arrayBuffer());
    const recorded = recordedProtobuf.documents['/openapi/v3/apis/proto.example.com/v1'];
    expect(bytes.length).toBe(recorded.protobufLength);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(recorded.protobufSha256);
  });

  test('the index lists the documents the reference lists', async () => {
    const served = (await (await fetch(`${base}/openapi/v3`)).json()) as { paths: Record<string, unknown> };
    // The review kinds' groups are served once the server adds them (control-plane.ts); this
    // registry lacks them. The CRD group-version is this registry's own.
    const unserved = /^apis\/(authentication|authorization)\.k8s\.io(\/|$)/;
    const expected = [...recordedIndex.indexKeys.filter((key) => !unserved.test(key)), 'apis/proto.example.com/v1'];
    expect(Object.keys(served.paths)).toEqual(expected.sort());
  });

  test.each(Object.keys(recordedIndex.documents))('%s: the document outside the group-versions', async (key) => {
    const answer = await fetch(`${base}/openapi/v3/${key}`);
    expect(answer.status).toBe(200);
    const body = await answer.text();
    const served = JSON.parse(body) as unknown;
    expect(differences(served, JSON.parse(recordedIndex.documents[key]))).toEqual([]);
    expect(body).toBe(recordedIndex.documents[key]);
  });
});
