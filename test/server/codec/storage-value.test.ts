/**
 * Stored values: what the reference kube-apiserver 1.34.4 wrote to etcd (fixtures/reference-
 * stored-values.json: the values of objects created through it with kubectl, read back from
 * its etcd, base64) decodes into the objects capstan keeps, and capstan writes the very same
 * bytes back; and every encoding and stored version a reference may leave is read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify as yamlStringify } from 'yaml';
import { decodeObject, encodeObject } from '../../../storage/objects/codec';
import type { KubeObject } from '../../../api/objects';
import { encodeCbor } from '../../../server/codec/cbor';
import { decodeEnvelope, encodeEnvelope } from '../../../server/codec/protobuf-envelope';
import type { StorageMediaType } from '../../../server/config/storage-media-type';
import { storageValueCodec } from '../../../server/codec/storage-value';
import { groupVersionString } from '../../../api/identity';
import { storageGroupVersion, type ResourceType } from '../../../server/registry/types';
import { parseFlags } from '../../../server/config/flags';
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import { asCRD } from '../../../server/apiextensions/crd-types';
import { BUILTIN_TYPES } from '../../../server/builtin-types';

const PROTOBUF: StorageMediaType = 'application/vnd.kubernetes.protobuf';
const STORED = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'reference-stored-values.json'), 'utf8')) as Record<
  string,
  { key: string; value: string }
>;

function builtin(qualified: string): ResourceType {
  const [resource, ...group] = qualified.split('.');
  const type = BUILTIN_TYPES.find(
    (candidate) => candidate.resource === resource && candidate.group === group.join('.'),
  );
  if (type === undefined) throw new Error(`no built-in ${qualified}`);
  return type;
}

function storedValue(name: string): Buffer {
  return Buffer.from(STORED[name].value, 'base64');
}

function decodeStored(type: ResourceType, value: Buffer, mediaType: StorageMediaType = PROTOBUF): KubeObject {
  return decodeObject({ key: '/registry/x', value, modRevision: 7 }, storageValueCodec(type, mediaType));
}

/** The widgets' type, made from the reference's stored CRD as capstan serves it. */
function widgets(): ResourceType {
  const crd = decodeStored(
    builtin('customresourcedefinitions.apiextensions.k8s.io'),
    storedValue('customresourcedefinitions.apiextensions.k8s.io'),
  );
  return customResourceType(asCRD(crd));
}

describe('values the reference wrote', () => {
  const protobufKinds = [
    'deployments.apps',
    'configmaps',
    'pods',
    'services',
    'events',
    'horizontalpodautoscalers.autoscaling',
    'cronjobs.batch',
    'endpointslices.discovery.k8s.io',
    'leases.coordination.k8s.io',
    'resourceclaims.resource.k8s.io',
    'deviceclasses.resource.k8s.io',
  ];

  test.each(protobufKinds)('%s: protobuf, read and written back byte for byte', (name) => {
    const type = builtin(name);
    const codec = storageValueCodec(type, PROTOBUF);
    const value = storedValue(name);
    const object = decodeStored(type, value);
    expect(object.metadata.resourceVersion).toBe('7');
    expect(object.apiVersion).toBe(groupVersionString(storageGroupVersion(type)));
    const written = encodeObject(object, codec);
    expect(written.subarray(0, 4).toString('latin1')).toBe('k8s\u0000');
    expect(decodeEnvelope(written)).toMatchObject({
      apiVersion: decodeEnvelope(value).apiVersion,
      kind: decodeEnvelope(value).kind,
    });
    expect(written.equals(value)).toBe(true);
  });

  test('resource.k8s.io is kept as v1 and stored as v1beta2, as the reference 1.34 stores it', () => {
    const type = builtin('resourceclaims.resource.k8s.io');
    const object = decodeStored(type, storedValue('resourceclaims.resource.k8s.io'));
    expect(object).toMatchObject({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'dc1' } }] } },
    });
    expect(decodeEnvelope(encodeObject(object, storageValueCodec(type, PROTOBUF)))).toMatchObject({
      apiVersion: 'resource.k8s.io/v1beta2',
      kind: 'ResourceClaim',
    });
  });

  test('an events.k8s.io Event is stored as a core v1 Event', () => {
    const type = builtin('events.events.k8s.io');
    const object = decodeStored(type, storedValue('events.events.k8s.io'));
    expect(object).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: { kind: 'Pod', name: 'p1' },
      reportingComponent: 'a/b',
    });
    expect(encodeObject(object, storageValueCodec(type, PROTOBUF)).equals(storedValue('events.events.k8s.io'))).toBe(
      true,
    );
  });

  test("a template's zero creationTimestamp is left out, as the reference 1.34 answers it", () => {
    const deployment = decodeStored(builtin('deployments.apps'), storedValue('deployments.apps'));
    expect(deployment.metadata.creationTimestamp).toMatch(/^2026-/);
    expect((deployment.spec as { template: { metadata: Record<string, unknown> } }).template.metadata).toEqual({
      labels: { a: 'b' },
    });
  });

  test('an HPA is stored as autoscaling/v2', () => {
    const object = decodeStored(
      builtin('horizontalpodautoscalers.autoscaling'),
      storedValue('horizontalpodautoscalers.autoscaling'),
    );
    expect(object).toMatchObject({
      apiVersion: 'autoscaling/v2',
      spec: { maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu' } }] },
    });
  });

  test('a CRD is stored as v1beta1 JSON whatever the media type, and read as v1', () => {
    const type = builtin('customresourcedefinitions.apiextensions.k8s.io');
    const value = storedValue('customresourcedefinitions.apiextensions.k8s.io');
    expect(value.toString('utf8')).toContain('"apiVersion":"apiextensions.k8s.io/v1beta1"');
    const crd = decodeStored(type, value);
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.spec).toEqual({
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
      conversion: { strategy: 'None' },
    });
    // Decoded from the reference's bytes, the object keeps its key order: the same bytes come back.
    expect(encodeObject(crd, storageValueCodec(type, PROTOBUF)).toString('utf8')).toBe(value.toString('utf8'));
  });

  test('an APIService is JSON whatever the media type', () => {
    const type = builtin('apiservices.apiregistration.k8s.io');
    const value = storedValue('apiservices.apiregistration.k8s.io');
    const object = decodeStored(type, value);
    expect(object).toMatchObject({ apiVersion: 'apiregistration.k8s.io/v1', spec: { group: 'apps', version: 'v1' } });
    expect(encodeObject(object, storageValueCodec(type, PROTOBUF)).toString('utf8')).toBe(value.toString('utf8'));
  });

  test('a custom resource is JSON with sorted keys and Go escapes, byte for byte', () => {
    const type = widgets();
    const value = storedValue('widgets.example.com');
    const object = decodeStored(type, value);
    expect(object.spec).toEqual({ html: '<a&b> \u2028', z: 1, a: { c: 1, b: [2, 1.5, true, null] } });
    const reordered: KubeObject = {
      spec: object.spec,
      metadata: object.metadata,
      kind: 'Widget',
      apiVersion: 'example.com/v1',
    };
    expect(encodeObject(reordered, storageValueCodec(type, PROTOBUF)).toString('utf8')).toBe(value.toString('utf8'));
  });
});

describe('every encoding is read', () => {
  const type = builtin('configmaps');
  const configMap: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z' },
    data: { a: '<b>' },
  };
  const expected = { ...configMap, metadata: { ...configMap.metadata, resourceVersion: '7' } };

  test.each([
    ['protobuf', encodeEnvelope(configMap as never)],
    ['JSON', Buffer.from(JSON.stringify(configMap))],
    ['JSON with leading whitespace', Buffer.from(`\n ${JSON.stringify(configMap)}\n`)],
    ['YAML', Buffer.from(yamlStringify(configMap))],
    ['CBOR', encodeCbor(configMap)],
  ])('%s', (_format, value) => {
    expect(decodeStored(type, value)).toEqual(expected);
  });

  test.each(['application/json', 'application/yaml', PROTOBUF] as const)(
    'what --storage-media-type=%s writes reads back',
    (mediaType) => {
      const codec = storageValueCodec(type, mediaType);
      const value = encodeObject(
        { ...configMap, metadata: { ...configMap.metadata, resourceVersion: '3', selfLink: '/api/v1/x' } },
        codec,
      );
      expect(decodeObject({ key: '/k', value, modRevision: 7 }, storageValueCodec(type, PROTOBUF))).toEqual(expected);
    },
  );

  test('JSON as Go writes it: escaped and newline-terminated', () => {
    expect(encodeObject(configMap, storageValueCodec(type, 'application/json')).toString('utf8')).toBe(
      `${JSON.stringify(configMap).replace('<b>', '\\u003cb\\u003e')}\n`,
    );
  });

  test('bytes of no encoding are a corrupt object, naming the key', () => {
    expect(() =>
      decodeObject(
        { key: '/registry/configmaps/default/c', value: Buffer.from('k8s\u0000garbage'), modRevision: 9 },
        storageValueCodec(type, PROTOBUF),
      ),
    ).toThrow(
      /^StorageError: corrupt object, Code: 7, Key: \/registry\/configmaps\/default\/c, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=9: /,
    );
    expect(() => decodeStored(type, Buffer.from('just words'))).toThrow(/corrupt object/);
  });
});

describe('versions are converted on read', () => {
  test('an autoscaling/v1 HPA becomes v2', () => {
    const type = builtin('horizontalpodautoscalers.autoscaling');
    const v1 = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h', namespace: 'default' },
      spec: { maxReplicas: 4, scaleTargetRef: { kind: 'Deployment', name: 'd' }, targetCPUUtilizationPercentage: 50 },
    };
    expect(decodeStored(type, Buffer.from(JSON.stringify(v1)))).toMatchObject({
      apiVersion: 'autoscaling/v2',
      spec: {
        maxReplicas: 4,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        ],
      },
    });
  });

  test('an events.k8s.io/v1 Event becomes a core v1 Event', () => {
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      regarding: { kind: 'Pod', name: 'p' },
      note: 'n',
      reason: 'R',
    };
    expect(decodeStored(builtin('events'), encodeEnvelope(event))).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: { kind: 'Pod', name: 'p' },
      message: 'n',
    });
  });

  test('a CRD round-trips through v1beta1: shared schema, columns and subresources hoisted, webhook renamed', () => {
    const type = builtin('customresourcedefinitions.apiextensions.k8s.io');
    const schema = { openAPIV3Schema: { type: 'object' } };
    const columns = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'things', kind: 'Thing' },
        scope: 'Cluster',
        versions: [
          {
            name: 'v2',
            served: true,
            storage: true,
            schema,
            additionalPrinterColumns: columns,
            subresources: { status: {} },
          },
          {
            name: 'v1',
            served: true,
            storage: false,
            schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'string' } } } },
            additionalPrinterColumns: columns,
            subresources: { status: {} },
          },
        ],
        conversion: {
          strategy: 'Webhook',
          webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: ['v1'] },
        },
      },
    };
    const value = encodeObject(crd, storageValueCodec(type, PROTOBUF));
    const stored = JSON.parse(value.toString('utf8'));
    expect(stored.apiVersion).toBe('apiextensions.k8s.io/v1beta1');
    expect(stored.spec).toMatchObject({
      version: 'v2',
      subresources: { status: {} },
      additionalPrinterColumns: [{ name: 'Age', type: 'date', JSONPath: '.metadata.creationTimestamp' }],
      conversion: { strategy: 'Webhook', webhookClientConfig: { url: 'https://x' }, conversionReviewVersions: ['v1'] },
      preserveUnknownFields: false,
    });
    expect(stored.spec.validation).toBeUndefined();
    expect(stored.spec.versions[0]).toEqual({ name: 'v2', served: true, storage: true, schema });
    // Read back with what the reference's decoder defaults: the singular and list kind names,
    // and the storage version as the stored version; the status its Go type always writes.
    const names = { plural: 'things', kind: 'Thing', singular: 'thing', listKind: 'ThingList' };
    expect(decodeStored(type, value)).toEqual({
      ...crd,
      metadata: { ...crd.metadata, resourceVersion: '7' },
      spec: { ...(crd.spec as object), names },
      status: { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: ['v2'] },
    });
  });

  test("a built-in kind is read with the defaults the reference's decoder applies", () => {
    const claim = decodeStored(
      builtin('persistentvolumeclaims'),
      Buffer.from('{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c"},"spec":{},"status":{}}\n'),
    );
    expect(claim.status).toEqual({ phase: 'Pending' });
    expect(claim.spec).toEqual({ volumeMode: 'Filesystem' });
    const node = decodeStored(
      builtin('nodes'),
      Buffer.from('{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"spec":{"podCIDR":"10.0.0.0/24"}}\n'),
    );
    expect(node.spec).toEqual({ podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'] });
  });

  test('a custom resource keeps the version it was stored in (it is converted when served)', () => {
    const object = decodeStored(
      widgets(),
      Buffer.from('{"apiVersion":"example.com/v0","kind":"Widget","metadata":{"name":"w"}}\n'),
    );
    expect(object.apiVersion).toBe('example.com/v0');
  });
});

describe('--storage-media-type', () => {
  function mediaTypeOf(argv: string[]): string {
    const parsed = parseFlags(argv);
    if (!('options' in parsed)) throw new Error('unexpected help');
    return parsed.options.storageMediaType;
  }

  test('defaults to protobuf and takes the values the reference takes', () => {
    expect(mediaTypeOf([])).toBe('application/vnd.kubernetes.protobuf');
    expect(mediaTypeOf(['--storage-media-type=application/json'])).toBe('application/json');
    expect(mediaTypeOf(['--storage-media-type', 'application/yaml'])).toBe('application/yaml');
  });

  test('refuses others in the reference words (CBOR included: 1.34 does not store it)', () => {
    expect(() => mediaTypeOf(['--storage-media-type=application/cbor'])).toThrow(
      '--storage-media-type "application/cbor" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml',
    );
  });
});
