import { ALL_FIXTURES, pod } from './fixtures';
import {
  decodeEnvelope,
  decodeObject,
  decodeWatchEvent,
  encodeEnvelope,
  encodeListChunks,
  encodeWatchFrame,
  messageNameFor,
  PROTOBUF_MAGIC,
} from '../../../server/codec/protobuf-envelope';
import { decodeMessage, type JsonObject } from '../../../server/codec/protobuf';
import { encodeMessage } from '../../../server/codec/protobuf-encoder';
import { Reader } from 'protobufjs/minimal';
import { messageLayout } from '../../../server/codec/protobuf-layout';
import { schemaData } from '../../../server/schema/definitions';

describe('protobuf round trips (JSON → protobuf → JSON)', () => {
  // Every field comes back; what comes in addition is Go's zero members, which Go writes too
  // (`resources: {}`, `daemonEndpoints.kubeletEndpoint.Port: 0`), and the bytes are then stable.
  test.each(Object.entries(ALL_FIXTURES))('%s', (_name, object) => {
    const bytes = encodeEnvelope(object);
    expect(bytes.subarray(0, 4)).toEqual(PROTOBUF_MAGIC);
    const decoded = decodeObject(bytes);
    expect(decoded).toMatchObject(object);
    expect(encodeEnvelope(decoded).equals(bytes)).toBe(true);
  });
});

describe('protobuf wire details', () => {
  test('the envelope carries typeMeta, raw, and empty contentEncoding/contentType', () => {
    const envelope = decodeEnvelope(encodeEnvelope(pod));
    expect(envelope).toMatchObject({ apiVersion: 'v1', kind: 'Pod', contentEncoding: '', contentType: '' });
    expect(envelope.raw.length).toBeGreaterThan(100);
  });

  test('a Status cause keeps its reason (StatusCause.Type is `reason` on the wire, tag 1)', () => {
    const status = {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'm',
      reason: 'Invalid',
      code: 422,
      details: {
        name: 'x',
        kind: 'Pod',
        causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }],
      },
    };
    expect(decodeObject(encodeEnvelope(status))).toEqual(status);
  });

  test('map entries are written in sorted key order', () => {
    const bytes = encodeMessage(
      { name: 'x', labels: { z: '1', a: '2', m: '3' } },
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
    const text = Buffer.from(bytes).toString('latin1');
    expect(text.indexOf('a')).toBeLessThan(text.indexOf('m'));
    expect(text.indexOf('m')).toBeLessThan(text.indexOf('z'));
  });

  test('int-or-string keeps its kind; quantities stay strings', () => {
    const spec = {
      ports: [
        { port: 80, targetPort: 8080 },
        { port: 81, targetPort: 'web' },
      ],
    };
    expect(
      decodeMessage(encodeMessage(spec, 'io.k8s.api.core.v1.ServiceSpec'), 'io.k8s.api.core.v1.ServiceSpec'),
    ).toEqual(spec);
  });

  test("fields are written in tag order, with Go's non-pointer members written though zero (ObjectMeta)", () => {
    const bytes = encodeMessage({ namespace: 'ns', name: 'n' }, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    // name=1 "n", generateName=2 "", namespace=3 "ns", selfLink=4 "", uid=5 "", resourceVersion=6 "",
    // generation=7 0, creationTimestamp=8 (a zero time: empty); the pointer deletionTimestamp and the
    // empty maps and lists are left out.
    expect([...bytes]).toEqual([
      0x0a, 1, 0x6e, 0x12, 0, 0x1a, 2, 0x6e, 0x73, 0x22, 0, 0x2a, 0, 0x32, 0, 0x38, 0, 0x42, 0,
    ]);
  });

  test('a set time writes seconds and nanos, zero nanos included (Go’s Timestamp)', () => {
    const bytes = encodeMessage(
      { name: 'n', creationTimestamp: '2025-03-01T10:00:00Z' },
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
    // creationTimestamp=8: seconds=1 (1740823200 as a varint), nanos=2 (0).
    expect(bytes.subarray(-10).toString('hex')).toBe('420808a0b58bbe06' + '1000');
  });

  test('int32 members the struct tags mark "bytes" are written as varints (PodSpec.priority = 25)', () => {
    const bytes = encodeMessage({ priority: 7 }, 'io.k8s.api.core.v1.PodSpec');
    expect(bytes.includes(Buffer.from([((25 << 3) & 0x7f) | 0x80, (25 << 3) >> 7, 7]))).toBe(true);
    expect(decodeMessage(bytes, 'io.k8s.api.core.v1.PodSpec')).toMatchObject({ priority: 7 });
  });

  test('zero scalars of optional members written by Go clients read as absent; enforced ones stay', () => {
    // What client-go writes for a container with empty non-pointer strings.
    const container = decodeMessage(
      encodeMessage({ name: '', image: 'nginx', imagePullPolicy: '', stdin: false }, 'io.k8s.api.core.v1.Container'),
      'io.k8s.api.core.v1.Container',
    );
    expect(container).toEqual({ name: '', image: 'nginx', resources: {} });
  });

  test('a zero member whose default is not zero reads as absent, for defaulting (protocol "" → absent; containerPort 0 stays)', () => {
    const port = decodeMessage(
      encodeMessage({ containerPort: 0, protocol: '' }, 'io.k8s.api.core.v1.ContainerPort'),
      'io.k8s.api.core.v1.ContainerPort',
    );
    expect(port).toEqual({ containerPort: 0 });
  });

  test('a zero `omitempty` member reads as absent though its default is zero (minReadySeconds, +default=0)', () => {
    const spec = decodeMessage(
      encodeMessage({ replicas: 1, minReadySeconds: 0 }, 'io.k8s.api.core.v1.ReplicationControllerSpec'),
      'io.k8s.api.core.v1.ReplicationControllerSpec',
    );
    expect(spec).toEqual({ replicas: 1 });
  });

  test('an empty list member without `omitempty` reads from storage as null, as Go prints the nil it decodes to', () => {
    const bytes = encodeMessage({ desiredReplicas: 1 }, 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus');
    const type = 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus';
    expect(decodeMessage(bytes, type, { nilListsAsNull: true, sharedFieldSets: false })).toEqual({
      desiredReplicas: 1,
      currentMetrics: null,
    });
    // A request body keeps it absent, as the client sent it.
    expect(decodeMessage(bytes, type)).toEqual({ desiredReplicas: 1 });
  });

  test('an empty list keeps `items: []`; absent slices stay absent', () => {
    const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '5' }, items: [] };
    const decoded = decodeObject(Buffer.concat([...encodeListChunks(list, [])]));
    expect(decoded).toEqual(list);
  });

  test('a streamed list decodes as the whole list', () => {
    const items: JsonObject[] = [pod, { ...pod, metadata: { ...(pod.metadata as JsonObject), name: 'web-1' } }];
    const head = {
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '99', continue: 'abc', remainingItemCount: 3 },
    };
    const chunks = [...encodeListChunks(head, items)];
    const stripped = items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    expect(decodeObject(Buffer.concat(chunks))).toEqual({ ...head, items: stripped });
  });

  test("no list's item message has an apiVersion or kind field, so items are written without them", () => {
    const lists = Object.values(schemaData().definitions)
      .flatMap((definition) => definition['x-kubernetes-group-version-kind'] ?? [])
      .filter(({ kind }) => kind.endsWith('List'))
      .map(({ group, version, kind }) => messageNameFor(group === '' ? version : `${group}/${version}`, kind))
      .filter((name): name is string => name !== undefined && messageLayout(name).byTag.get(2)?.name === 'items');
    expect(lists).toEqual(expect.arrayContaining(['io.k8s.api.core.v1.PodList', 'io.k8s.api.apps.v1.DeploymentList']));
    // An embedded struct's fields are read from the item's own JSON object too.
    const jsonNames = (message: string): string[] => {
      const layout = messageLayout(message);
      return [
        ...layout.fields.map((field) => field.name),
        ...layout.inlines.flatMap((inline) => jsonNames(inline.type)),
      ];
    };
    const withTypeMeta = lists.filter((list) => {
      const names = jsonNames(messageLayout(list).byTag.get(2)!.type);
      return names.includes('apiVersion') || names.includes('kind');
    });
    expect(withTypeMeta).toEqual([]);
  });

  test('a watch frame is a 4-byte length and a raw WatchEvent whose object.raw is the enveloped object', () => {
    const frame = encodeWatchFrame('ADDED', pod);
    const length = frame.readUInt32BE(0);
    expect(length).toBe(frame.length - 4);
    const event = decodeWatchEvent(frame.subarray(4));
    expect(event.type).toBe('ADDED');
    expect(Buffer.from(event.object.subarray(0, 4))).toEqual(PROTOBUF_MAGIC);
    expect(decodeObject(event.object)).toEqual(pod);
  });

  test('envelope and frame lengths of one to four bytes, and non-ASCII text, come back whole', () => {
    for (const size of [0, 100, 200, 20_000, 2_200_000]) {
      const configMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `c${size}`, namespace: 'ns' },
        data: { a: 'x'.repeat(size), é: 'ü'.repeat(size % 300) },
      };
      expect(decodeObject(encodeEnvelope(configMap))).toEqual(configMap);
      const frame = encodeWatchFrame('MODIFIED', configMap);
      expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
      const event = decodeWatchEvent(frame.subarray(4));
      expect(event.type).toBe('MODIFIED');
      expect(decodeObject(event.object)).toEqual(configMap);
    }
    expect(decodeWatchEvent(encodeWatchFrame('ÄDDED', pod).subarray(4)).type).toBe('ÄDDED');
  });

  test('a Status encodes', () => {
    const status = {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'pods "x" not found',
      reason: 'NotFound',
      details: { name: 'x', kind: 'pods' },
      code: 404,
    };
    expect(decodeObject(encodeEnvelope(status))).toEqual(status);
  });

  test('PartialObjectMetadataList encodes', () => {
    const list = {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadataList',
      metadata: { resourceVersion: '3' },
      items: [{ metadata: { name: 'a', labels: { x: 'y' } } }],
    };
    expect(decodeObject(Buffer.concat([...encodeListChunks(list, list.items)]))).toEqual(list);
  });

  test('data without the magic is rejected', () => {
    expect(() => decodeObject(Buffer.from('{"kind":"Pod"}'))).toThrow(
      'provided data does not appear to be a protobuf message',
    );
  });

  test('the reader accepts what protobufjs reads back', () => {
    expect(() => Reader.create(encodeEnvelope(pod).subarray(4)).skipType(2)).not.toThrow();
  });
});

describe('the message of a kind', () => {
  it('is the same on every ask, and none for a kind without a protobuf form', () => {
    for (let ask = 0; ask < 3; ask++) {
      expect(messageNameFor('v1', 'ConfigMap')).toBe('io.k8s.api.core.v1.ConfigMap');
      expect(messageNameFor('apps/v1', 'Deployment')).toBe('io.k8s.api.apps.v1.Deployment');
      expect(messageNameFor('example.dev/v1', 'Widget')).toBeUndefined();
      expect(messageNameFor('v1', 'Deployment')).toBeUndefined();
    }
  });

  it('answers meta/v1 kinds for any group, however many groups ask', () => {
    for (let group = 0; group < 3000; group++) {
      expect(messageNameFor(`g${group}.example.dev/v1`, 'DeleteOptions')).toBe(
        'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
      );
    }
  });
});
