/**
 * Stored objects whose managedFields entries are the same bytes share one decoded FieldsV1 tree
 * (server/codec/shared-field-sets.ts), frozen; the objects read and print exactly as before,
 * a request body's trees are its own, and a tree no object holds leaves the table.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { decodeObject, encodeObject } from '../../../storage/objects/codec';
import type { KubeObject } from '../../../api/objects';
import { storageValueCodec } from '../../../server/codec/storage-value';
import { decodeObject as decodeRequestBody, encodeEnvelope } from '../../../server/codec/protobuf-envelope';
import type { JsonObject } from '../../../server/codec/protobuf';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { ensureBuilt, ROOT } from '../../helpers/capstan-process';

const PODS = BUILTIN_TYPES.find((type) => type.resource === 'pods' && type.group === '')!;
const codec = storageValueCodec(PODS, 'application/vnd.kubernetes.protobuf');

function fieldsV1For(labelKey: string): Record<string, unknown> {
  return {
    'f:metadata': { 'f:labels': { '.': {}, [`f:${labelKey}`]: {} } },
    'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
  };
}

function pod(name: string, labelKey: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      labels: { [labelKey]: 'x' },
      managedFields: [
        {
          manager: 'kubectl',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-30T07:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: fieldsV1For(labelKey),
        },
      ],
    },
    spec: { containers: [{ name: 'web', image: 'nginx' }] },
  };
}

function stored(object: KubeObject): KubeObject {
  const value = encodeObject(object, codec);
  return decodeObject({ key: `/registry/pods/default/${object.metadata.name}`, value, modRevision: 3 }, codec);
}

function fieldsOf(object: KubeObject): unknown {
  return (object.metadata.managedFields as { fieldsV1: unknown }[])[0].fieldsV1;
}

test('stored objects with the same entry share one frozen tree, and read as they did', () => {
  const first = stored(pod('a', 'app'));
  const second = stored(pod('b', 'app'));
  const other = stored(pod('c', 'tier'));
  expect(fieldsOf(first)).toBe(fieldsOf(second));
  expect(fieldsOf(other)).not.toBe(fieldsOf(first));
  expect(fieldsOf(first)).toEqual(fieldsV1For('app'));
  expect(JSON.stringify(fieldsOf(other))).toBe(JSON.stringify(fieldsV1For('tier')));

  // Distinct trees share their leaves.
  const image = (object: KubeObject) =>
    (fieldsOf(object) as Record<string, Record<string, Record<string, Record<string, unknown>>>>)['f:spec'][
      'f:containers'
    ]['k:{"name":"web"}']['f:image'];
  expect(image(other)).toBe(image(first));

  // A change in place throws where it is made instead of changing the other objects.
  const shared = fieldsOf(first) as Record<string, Record<string, unknown>>;
  expect(Object.isFrozen(shared['f:metadata'])).toBe(true);
  expect(() => {
    shared['f:metadata']['f:annotations'] = {};
  }).toThrow(TypeError);
  expect(fieldsOf(second)).toEqual(fieldsV1For('app'));
});

test('a value decoded whole (JSON storage, custom resources) shares the same trees', () => {
  const json = storageValueCodec(PODS, 'application/json');
  const fromJson = decodeObject(
    { key: '/registry/pods/default/j', value: encodeObject(pod('j', 'app'), json), modRevision: 4 },
    json,
  );
  const fromProtobuf = stored(pod('k', 'app'));
  expect(fieldsOf(fromJson)).toBe(fieldsOf(fromProtobuf));
  expect(Object.isFrozen(fieldsOf(fromJson))).toBe(true);
});

test("a request body's trees are its own and can be changed", () => {
  const bytes = encodeEnvelope(pod('a', 'app') as unknown as JsonObject);
  const first = decodeRequestBody(bytes) as unknown as KubeObject;
  const second = decodeRequestBody(bytes) as unknown as KubeObject;
  expect(fieldsOf(first)).toEqual(fieldsOf(second));
  expect(fieldsOf(first)).not.toBe(fieldsOf(second));
  expect(Object.isFrozen(fieldsOf(first))).toBe(false);
});

/**
 * Decodes the stored values in a Node process of its own, drops the objects, and counts the
 * table's trees then and once collections have run (up to 10 s). Its own process, because V8
 * cleans up one finalization registry per task, and in a jest worker every earlier test file
 * loaded modules with registries of their own: after 60 files in one worker the trees took 1.8 s
 * to leave, against 0.2-0.3 s alone, and in CI, late in a worker, none had left after 10 s.
 */
function treesOfDroppedObjects(values: readonly Buffer[]): { added: number; left: number } {
  ensureBuilt();
  const output = execFileSync(process.execPath, ['--expose-gc', '-e', DECODE_AND_DROP], {
    input: JSON.stringify(values.map((value) => value.toString('base64'))),
    env: { ...process.env, CAPSTAN_DIST: join(ROOT, 'dist') },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return JSON.parse(output) as { added: number; left: number };
}

/** The child of `treesOfDroppedObjects`: the built modules, the values on stdin, JSON out. */
const DECODE_AND_DROP = `
const { join } = require('node:path');
const dist = process.env.CAPSTAN_DIST;
const { decodeObject } = require(join(dist, 'storage/objects/codec.js'));
const { storageValueCodec } = require(join(dist, 'server/codec/storage-value.js'));
const { sharedFieldSetCount } = require(join(dist, 'server/codec/shared-field-sets.js'));
const { BUILTIN_TYPES } = require(join(dist, 'server/builtin-types.js'));
const values = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const pods = BUILTIN_TYPES.find((type) => type.resource === 'pods' && type.group === '');
const codec = storageValueCodec(pods, 'application/vnd.kubernetes.protobuf');
// Decoded and dropped at once: a finalization callback runs in a later task, never within this one.
values.forEach((value, i) =>
  decodeObject({ key: '/registry/pods/default/p' + i, value: Buffer.from(value, 'base64'), modRevision: 3 }, codec));
const added = sharedFieldSetCount();
const deadline = Date.now() + 10000;
(function poll() {
  const left = sharedFieldSetCount();
  if (left === 0 || Date.now() > deadline) return process.stdout.write(JSON.stringify({ added, left }));
  gc();
  setTimeout(poll, 20);
})();
`;

test('a tree no object holds any longer leaves the table', () => {
  const values = Array.from({ length: 50 }, (_, i) => encodeObject(pod(`p${i}`, `label-${i}`), codec));
  expect(treesOfDroppedObjects(values)).toEqual({ added: 50, left: 0 });
});
