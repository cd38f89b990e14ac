/**
 * Stored objects whose managedFields entries are the same bytes share one decoded FieldsV1 tree
 * (server/codec/shared-field-sets.ts), frozen; the objects read and print exactly as before,
 * a request body's trees are its own, and a tree no object holds leaves the table.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { decodeObject, encodeObject } from '../../../storage/objects/codec';
import type { KubeObject } from '../../../api/objects';
import { storageValueCodec } from '../../../server/codec/storage-value';
import { sharedFieldSetCount } from '../../../server/codec/shared-field-sets';
import { decodeObject as decodeRequestBody, encodeEnvelope } from '../../../server/codec/protobuf-envelope';
import type { JsonObject } from '../../../server/codec/protobuf';
import { BUILTIN_TYPES } from '../../../server/builtin-types';

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
 * Stores and drops 50 pods of distinct entries, in a frame of its own: a reference the test's
 * async frame left in one of its registers (saved with it at each await) would hold them.
 */
function treesAddedByFiftyPods(): number {
  const before = sharedFieldSetCount();
  const objects = Array.from({ length: 50 }, (_, i) => stored(pod(`p${i}`, `label-${i}`)));
  return objects.length === 50 ? sharedFieldSetCount() - before : -1;
}

test('a tree no object holds any longer leaves the table', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const before = sharedFieldSetCount();
  expect(treesAddedByFiftyPods()).toBe(50);
  // Finalization callbacks run after a collection, from the event loop.
  const deadline = Date.now() + 10_000;
  while (sharedFieldSetCount() > before && Date.now() < deadline) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // The earlier tests' trees may go too.
  expect(sharedFieldSetCount()).toBeLessThanOrEqual(before);
});
