/**
 * The protobuf writer's bytes, pinned: SHA-256 prefixes of what it produces for every fixture,
 * for values at the edges of the wire format, for a list that spans several chunks and for a
 * watch frame. client-go reads these bytes (test/client/client-go.test.ts), and the reference
 * reads them from etcd (test/server/codec/storage-value.test.ts checks them against its own);
 * a change here must be a deliberate one. Last changed when the writer began writing Go's zero
 * members (non-pointer fields) and both halves of every set time, as Go does.
 */
import { createHash } from 'node:crypto';
import {
  decodeObject,
  encodeEnvelope,
  encodeListChunks,
  encodeWatchFrame,
} from '../../../server/codec/protobuf-envelope';
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
      labels: { émoji: 'x', z: '1', '\u{1F600}': 'face', '\uFFFD': 'replacement', a: 'first' },
      annotations: {
        long: 'x'.repeat(300),
        ünïcödé: 'naïve café — 日本語 \u{1F680}'.repeat(5),
        mixed: `${'a'.repeat(31)}é`,
      },
      managedFields: [
        {
          manager: 'kübectl',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2025-03-01T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:ключ': {}, 'k:{"name":"x\\"y"}': {}, 'f:\u{1F600}': {} } },
        },
      ],
    },
    data: { ключ: 'значение', empty: '', 'quote"d': 'back\\slash\nnewline\ttab' },
    binaryData: { blob: Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255]).toString('base64') },
  },
  'negative, large and zero numbers; null and fractional times': {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'numbers',
      generation: 2 ** 40 + 3,
      creationTimestamp: null,
      deletionTimestamp: '2025-03-01T10:00:00Z',
      deletionGracePeriodSeconds: -30,
    },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'i',
          ports: [{ containerPort: 0, hostPort: 65535, protocol: 'UDP' }],
          securityContext: { runAsUser: -1, runAsGroup: 2 ** 33 },
        },
      ],
      priority: -2147483648,
      activeDeadlineSeconds: 9007199254740991,
      terminationGracePeriodSeconds: 0,
    },
    status: {
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '1969-12-31T23:59:59Z' }],
      startTime: '2025-03-01T10:00:00Z',
    },
  },
  'micro times with fractions': {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'kube-system' },
    spec: {
      holderIdentity: 'h',
      leaseDurationSeconds: 15,
      acquireTime: '2025-03-01T10:00:00.000001Z',
      renewTime: '2025-03-01T10:00:00.123456Z',
      leaseTransitions: 0,
    },
  },
  'int-or-string both ways': {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: {
      ports: [
        { port: 80, targetPort: 8080 },
        { port: 81, targetPort: 'web' },
        { port: 82, targetPort: -1 },
      ],
      type: 'ClusterIP',
    },
  },
};

const GOLDEN_DIGESTS: Record<string, string> = {
  pod: '465f8ecdac99e3ba',
  deployment: 'ead8de2d16bfa99e',
  service: '1195fc259197ec22',
  configMap: 'afce94c69f925210',
  secret: '0ef7c01f43b08856',
  namespace: '5188d3ae644b946d',
  node: 'c1318a54b65fceae',
  job: 'cb1d081d108dc8f5',
  cronJob: '2de153f0e561cd79',
  hpa: 'e72466c24568665b',
  event: '27edeb606fd26608',
  role: '197e8a670aeee68f',
  lease: '6b493a14ef71a25f',
  ingress: '92e4c785e9d29635',
  statefulSet: '948a6d16aaab1277',
  crd: 'd193b33a0e23cffc',
  'non-ASCII text, long strings, surrogate pairs': '69a3ef1033ac88f9',
  'negative, large and zero numbers; null and fractional times': 'e47ad3648723d931',
  'micro times with fractions': '54afe7756931f94d',
  'int-or-string both ways': '770ccfa899062aa3',
};

function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

const LIST_HEAD = {
  apiVersion: 'v1',
  kind: 'PodList',
  metadata: { resourceVersion: '99', continue: 'abc', remainingItemCount: 3 },
};
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
    expect(digest(Buffer.concat([...encodeListChunks(LIST_HEAD, LIST_ITEMS)]))).toBe('21f859f94ded19a7');
  });

  test('a watch frame', () => {
    expect(digest(encodeWatchFrame('MODIFIED', EDGE_OBJECTS['non-ASCII text, long strings, surrogate pairs']))).toBe(
      '21e8bca582e22688',
    );
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
