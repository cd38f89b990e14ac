/**
 * The protobuf writer's bytes, pinned: SHA-256 prefixes of what the previous writer (protobufjs's
 * Writer over the same layouts) produced for every fixture, for values at the edges of the wire
 * format, for a list that spans several chunks and for a watch frame. client-go reads these bytes
 * (test/client/client-go.test.ts); a change here must be a deliberate one.
 */
import { createHash } from 'node:crypto';
import { decodeObject, encodeEnvelope, encodeListChunks, encodeWatchFrame } from '../../../server/codec/protobuf-envelope';
import type { JsonObject } from '../../../server/codec/protobuf';
import { ALL_FIXTURES, pod } from './fixtures';

/** Values at the edges of the wire format: multi-byte text, negative and 64-bit numbers, zero times, map key order. */
const EDGE_OBJECTS: Record<string, JsonObject> = {
  'non-ASCII text, long strings, surrogate pairs': {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'unicode',
      namespace: 'default',
      labels: { 'émoji': 'x', z: '1', '\u{1F600}': 'face', '\uFFFD': 'replacement', a: 'first' },
      annotations: { long: 'x'.repeat(300), 'ünïcödé': 'naïve café — 日本語 \u{1F680}'.repeat(5), mixed: `${'a'.repeat(31)}é` },
      managedFields: [
        { manager: 'kübectl', operation: 'Update', apiVersion: 'v1', time: '2025-03-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:ключ': {}, 'k:{"name":"x\\"y"}': {}, 'f:\u{1F600}': {} } } },
      ],
    },
    data: { 'ключ': 'значение', empty: '', 'quote"d': 'back\\slash\nnewline\ttab' },
    binaryData: { blob: Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255]).toString('base64') },
  },
  'negative, large and zero numbers; null and fractional times': {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'numbers', generation: 2 ** 40 + 3, creationTimestamp: null, deletionTimestamp: '2025-03-01T10:00:00Z', deletionGracePeriodSeconds: -30 },
    spec: {
      containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 0, hostPort: 65535, protocol: 'UDP' }], securityContext: { runAsUser: -1, runAsGroup: 2 ** 33 } }],
      priority: -2147483648,
      activeDeadlineSeconds: 9007199254740991,
      terminationGracePeriodSeconds: 0,
    },
    status: { conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '1969-12-31T23:59:59Z' }], startTime: '2025-03-01T10:00:00Z' },
  },
  'micro times with fractions': {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'kube-system' },
    spec: { holderIdentity: 'h', leaseDurationSeconds: 15, acquireTime: '2025-03-01T10:00:00.000001Z', renewTime: '2025-03-01T10:00:00.123456Z', leaseTransitions: 0 },
  },
  'int-or-string both ways': {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 81, targetPort: 'web' }, { port: 82, targetPort: -1 }], type: 'ClusterIP' },
  },
};

const GOLDEN_DIGESTS: Record<string, string> = {
  'pod': '3c9f47aab610e352',
  'deployment': 'ab3a32fb834db083',
  'service': '5ea6521919983db1',
  'configMap': '615ffad68612143d',
  'secret': '1b6db946dd475fbd',
  'namespace': 'c2fec4ec02935012',
  'node': '8939fe153141336c',
  'job': 'e6e349c780945965',
  'cronJob': '3482b2aad9f8b723',
  'hpa': 'a09ab3833dc5b158',
  'event': '6bf4adf76566f201',
  'role': '46a01022d1a47087',
  'lease': '3914fe01790d620e',
  'ingress': 'e08abff56a8513f8',
  'statefulSet': 'de579410f35aa549',
  'crd': '71fe686e6682f795',
  'non-ASCII text, long strings, surrogate pairs': 'd027ba4a0ab57e87',
  'negative, large and zero numbers; null and fractional times': 'b428a0ee21ecc5b4',
  'micro times with fractions': '52071518633f7ba6',
  'int-or-string both ways': '333ac32601b627a9',
};

function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

const LIST_HEAD = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '99', continue: 'abc', remainingItemCount: 3 } };
/** Sixty pods of growing size: about 110 KB, more than one chunk. */
const LIST_ITEMS: JsonObject[] = Array.from({ length: 60 }, (_, index) => ({
  ...pod,
  metadata: { ...(pod.metadata as JsonObject), name: `web-${index}`, annotations: { pad: 'p'.repeat(index * 40) } },
}));

describe('protobuf bytes as before', () => {
  test.each(Object.entries({ ...ALL_FIXTURES, ...EDGE_OBJECTS }))('%s', (name, object) => {
    expect(digest(encodeEnvelope(object))).toBe(GOLDEN_DIGESTS[name]);
  });

  test('a list streamed in chunks', () => {
    expect(digest(Buffer.concat([...encodeListChunks(LIST_HEAD, LIST_ITEMS)]))).toBe('a6394234228cf7b3');
  });

  test('a watch frame', () => {
    expect(digest(encodeWatchFrame('MODIFIED', EDGE_OBJECTS['non-ASCII text, long strings, surrogate pairs']))).toBe('988c91866719dd2a');
  });
});

describe('protobuf lists stream', () => {
  test('items go out in chunks of at most 64 KiB after a head with the list metadata, then the trailer', () => {
    const chunks = [...encodeListChunks(LIST_HEAD, LIST_ITEMS)];
    const itemChunks = chunks.slice(1, -1);
    expect(itemChunks.length).toBeGreaterThan(1);
    for (const chunk of itemChunks) expect(chunk.length).toBeLessThanOrEqual(64 * 1024);
    expect(chunks[chunks.length - 1]).toEqual(Buffer.from([0x1a, 0, 0x22, 0]));
    const stripped = LIST_ITEMS.map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    expect(decodeObject(Buffer.concat(chunks))).toEqual({ ...LIST_HEAD, items: stripped });
  });

  test('an item larger than a chunk goes out alone', () => {
    const big = { ...pod, metadata: { ...(pod.metadata as JsonObject), annotations: { big: 'b'.repeat(100_000) } } };
    const chunks = [...encodeListChunks(LIST_HEAD, [pod, big, pod])];
    expect(chunks.map((chunk) => chunk.length > 64 * 1024)).toEqual([false, false, true, false, false]);
  });

  test('items are written only when their chunk is asked for; one changed after sizing is an error, not a corrupt stream', () => {
    const items = [...LIST_ITEMS];
    const chunks = encodeListChunks(LIST_HEAD, items);
    const head = chunks.next();
    expect(head.done).toBe(false);
    items[59] = { ...pod, metadata: { ...(pod.metadata as JsonObject), name: 'renamed-after-sizing' } };
    expect(() => [...chunks]).toThrow('changed while it was written');
  });
});
