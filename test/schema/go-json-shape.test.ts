/**
 * shapeObject: a JSON object as encoding/json writes the Go type it decodes to, read off the
 * definitions' protobuf facts. The recorded answers (test/server/apiextensions/fixtures/
 * crd-and-apiservice-answers.json) show the reference doing this; these pin the rules one by one.
 */
import { shapeObject } from '../../server/schema/go-json-shape';

const CRD = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition';
const SCHEMA = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
const API_SERVICE = 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService';

function shaped(name: string, object: Record<string, unknown>): Record<string, unknown> {
  shapeObject(name, object);
  return object;
}

test('omitempty zeros go, plain scalars are written at their zero, value structs are always there', () => {
  const crd = shaped(CRD, {
    metadata: { name: 'xs.example.com', labels: {} },
    spec: { group: 'example.com', names: { plural: 'xs', kind: 'X', shortNames: [], categories: [] } },
  });
  expect(crd).toEqual({
    // metadata is ObjectMeta's own business: left as sent.
    metadata: { name: 'xs.example.com', labels: {} },
    spec: { group: 'example.com', names: { plural: 'xs', kind: 'X' }, scope: '', versions: null },
    status: { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: null },
  });
});

test('an empty list without omitempty stays an empty list; a nil one is null', () => {
  const status = { conditions: [], storedVersions: ['v1'] };
  expect(shaped(CRD, { spec: {}, status }).status).toEqual({
    conditions: [],
    acceptedNames: { plural: '', kind: '' },
    storedVersions: ['v1'],
  });
});

test("a schema's members: omitempty zeros go, pointers to zeros stay, raw JSON is kept as sent", () => {
  const schema = shaped(SCHEMA, {
    type: 'object',
    description: '',
    nullable: false,
    uniqueItems: false,
    required: [],
    maxLength: 0,
    'x-kubernetes-preserve-unknown-fields': false,
    default: { b: [], a: false },
    enum: [0, ''],
    properties: {
      list: { type: 'array', items: { type: 'string', nullable: false } },
      tuple: { type: 'array', items: [{ type: 'string', title: '' }] },
      open: { type: 'object', additionalProperties: true },
      typed: { type: 'object', additionalProperties: { type: 'string', format: '' } },
    },
  });
  expect(schema).toEqual({
    type: 'object',
    maxLength: 0,
    'x-kubernetes-preserve-unknown-fields': false,
    default: { b: [], a: false },
    enum: [0, ''],
    properties: {
      list: { type: 'array', items: { type: 'string' } },
      tuple: { type: 'array', items: [{ type: 'string' }] },
      open: { type: 'object', additionalProperties: true },
      typed: { type: 'object', additionalProperties: { type: 'string' } },
    },
  });
});

test('an APIService: caBundle and insecureSkipTLSVerify at their zeros go, priorities are written', () => {
  const service = shaped(API_SERVICE, {
    spec: { group: 'g', version: 'v1', caBundle: '', insecureSkipTLSVerify: false },
  });
  expect(service).toEqual({
    spec: { group: 'g', version: 'v1', groupPriorityMinimum: 0, versionPriority: 0 },
    status: {},
  });
});
