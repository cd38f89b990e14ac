/**
 * A CRD made into a ResourceType and served by the generic handlers (in-process, real SQLite):
 * names, pruning, defaulting, schema validation, status and scale subresources, field
 * selectors; and the printer of its columns.
 */
import {
  customDefinitionName,
  customResourceDefinitions,
  customResourceType,
} from '../../../server/apiextensions/custom-resource-type';
import { customResourcePrinter } from '../../../server/apiextensions/printer-columns';
import { callJson, type ServedApi, serveTypesOnTestStore } from '../../helpers/in-process-api';
import { widgetCRD } from './fixtures';

const crd = widgetCRD();
const type = customResourceType(crd);
let api: ServedApi;
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

beforeAll(async () => {
  api = await serveTypesOnTestStore([type]);
});

afterAll(() => api.close());

const call = (method: string, path: string, body?: unknown, contentType?: string) =>
  callJson(api, method, path, body, contentType);

function widget(name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec, ...extra };
}

test('the type carries the CRD names, scope, storage and subresources', () => {
  expect(type).toMatchObject({
    group: 'example.com',
    resource: 'widgets',
    singular: 'widget',
    kind: 'Widget',
    listKind: 'WidgetList',
    namespaced: true,
    storageVersion: 'v1',
    storagePrefix: 'example.com/widgets',
    shortNames: ['wd'],
    categories: ['all'],
    subresources: {
      status: true,
      scale: {
        specReplicasPath: 'spec.replicas',
        statusReplicasPath: 'status.replicas',
        labelSelectorPath: 'status.selector',
      },
    },
  });
  expect(type.versions.map(({ printer: _printer, own: _own, ...version }) => version)).toEqual([
    { version: 'v1', definition: 'com.example.v1.Widget' },
  ]);
  expect(type.versions[0].printer?.columns.map((column) => column.name)).toEqual(['Name', 'Color', 'Replicas', 'Age']);
  expect(Object.keys(type.selectableFields)).toEqual(['spec.color']);
  expect(customResourceDefinitions(crd)[customDefinitionName('example.com', 'v1', 'Widget')]).toMatchObject({
    properties: {
      metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      spec: { required: ['color'] },
    },
    'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'Widget' }],
  });
});

test('create prunes unknown fields, applies defaults, drops status and starts generation at 1', async () => {
  const created = await call('POST', WIDGETS, widget('a', { color: 'red', extra: true }, { status: { replicas: 5 } }));
  expect(created.status).toBe(201);
  expect(created.body.spec).toEqual({ color: 'red', replicas: 1 });
  expect(created.body.status).toBeUndefined();
  expect(created.body.metadata.generation).toBe(1);
});

test('an invalid object is rejected with the schema messages', async () => {
  const rejected = await call('POST', WIDGETS, widget('b', { color: 'green', replicas: 20 }));
  expect(rejected.status).toBe(422);
  expect(rejected.body.message).toBe(
    'Widget.example.com "b" is invalid: [spec.color: Unsupported value: "green": supported values: "red", "blue", spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10]',
  );
});

test('finalizers a write adds without a domain (or with a domain and no path) are warned of, as kube-apiserver v1.34.4 words it', async () => {
  const headers = { 'content-type': 'application/json' };
  const finalizers = ['foo', 'a.b', 'x/y', 'kubernetes', 'orphan', 'Abc'];
  const created = await fetch(api.base + WIDGETS, {
    method: 'POST',
    headers,
    body: JSON.stringify(widget('fin', { color: 'red' }, { metadata: { name: 'fin', finalizers } })),
  });
  expect(created.status).toBe(201);
  expect(created.headers.get('warning')).toBe(
    [
      '299 - "metadata.finalizers: \\"Abc\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"',
      '299 - "metadata.finalizers: \\"a.b\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"',
      '299 - "metadata.finalizers: \\"foo\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"',
    ].join(', '),
  );
  // Only the finalizers the update adds.
  const patched = await fetch(`${api.base}${WIDGETS}/fin`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ metadata: { finalizers: ['foo', 'bar', 'a.b/c'] } }),
  });
  expect(patched.status).toBe(200);
  expect(patched.headers.get('warning')).toBe(
    '299 - "metadata.finalizers: \\"bar\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"',
  );
  await fetch(`${api.base}${WIDGETS}/fin`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ metadata: { finalizers: null } }),
  });
});

test('status and scale subresources read and write their parts', async () => {
  const current = await call('GET', `${WIDGETS}/a`);
  const status = await call('PUT', `${WIDGETS}/a/status`, {
    ...current.body,
    spec: { color: 'blue' },
    status: { replicas: 1, selector: 'app=a' },
  });
  expect(status.status).toBe(200);
  expect(status.body.spec.color).toBe('red');
  expect(status.body.status).toEqual({ replicas: 1, selector: 'app=a' });
  const scale = await call('GET', `${WIDGETS}/a/scale`);
  expect(scale.body).toMatchObject({
    kind: 'Scale',
    spec: { replicas: 1 },
    status: { replicas: 1, selector: 'app=a' },
  });
  const scaled = await call('PATCH', `${WIDGETS}/a/scale`, { spec: { replicas: 4 } }, 'application/merge-patch+json');
  expect(scaled.status).toBe(200);
  const after = await call('GET', `${WIDGETS}/a`);
  expect(after.body.spec.replicas).toBe(4);
  expect(after.body.metadata.generation).toBe(2);
});

test('a declared selectable field filters lists', async () => {
  await call('POST', WIDGETS, widget('c', { color: 'blue' }));
  const blue = await call('GET', `${WIDGETS}?fieldSelector=spec.color%3Dblue`);
  expect(blue.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['c']);
});

test('an update without resourceVersion is refused', async () => {
  const rejected = await call('PUT', `${WIDGETS}/c`, widget('c', { color: 'red' }));
  expect(rejected.status).toBe(422);
});

test('the printer shows the declared columns, typed', () => {
  const printer = customResourcePrinter(crd.spec.versions[0].additionalPrinterColumns);
  expect(printer.columns.map((column) => [column.name, column.type])).toEqual([
    ['Name', 'string'],
    ['Color', 'string'],
    ['Replicas', 'integer'],
    ['Age', 'date'],
  ]);
  const now = new Date('2026-01-01T00:10:00Z');
  const row = printer.print(
    { metadata: { name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { color: 'red', replicas: 2 } },
    now,
  );
  expect(row.cells).toEqual(['a', 'red', 2, '10m']);
  expect(printer.print({ metadata: { name: 'b' }, spec: {} }, now).cells).toEqual(['b', null, null, null]);
  expect(customResourcePrinter(undefined).columns.map((column) => column.name)).toEqual(['Name', 'Age']);
});

test('bodies are not typed: a wrong type is the schema validation 422; unknown fields follow fieldValidation; allowed nulls stay', async () => {
  const wrongType = await call('POST', WIDGETS, widget('p', { color: 'red', replicas: 'x' }));
  expect(wrongType.status).toBe(422);
  // The scale subresource reads spec.replicas too, and says so after the schema (as kube-apiserver 1.34.4 answered).
  expect(wrongType.body.message).toBe(
    'Widget.example.com "p" is invalid: [spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", ' +
      '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64]',
  );
  const strict = await call('POST', `${WIDGETS}?fieldValidation=Strict`, widget('q', { color: 'red', unknown: 1 }));
  expect(strict.status).toBe(400);
  expect(strict.body.message).toBe(
    'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.unknown"',
  );
  const response = await fetch(`${api.base}${WIDGETS}?fieldValidation=Warn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(widget('r', { color: 'red', unknown: 1, note: null })),
  });
  expect(response.status).toBe(201);
  expect(response.headers.get('warning')).toBe('299 - "unknown field \\"spec.unknown\\""');
  expect(((await response.json()) as { spec: unknown }).spec).toEqual({ color: 'red', note: null, replicas: 1 });
});

/**
 * Pruning names an unknown field as `unknown field "<path>"`, the path as it is, where a typed
 * kind's decoder quotes it with %q; and a warning whose text holds a control character is not
 * sent at all (Go's net.NewWarningHeader refuses it). Recorded from kube-apiserver 1.34.4 with
 * these keys under a structural `spec`.
 */
test('unknown field paths print as they are, and warnings with control characters are not sent', async () => {
  const keys = ['a\u0001b', 'c\u007fd', 'e\u0085f', 'g\u200bh', 't\tab', 'nl\nx', 'q"uote', 'bs\\x', '\u00e9'];
  const spec = { color: 'red', ...Object.fromEntries(keys.map((key, i) => [key, i])) };
  const strict = await call('POST', `${WIDGETS}?fieldValidation=Strict`, widget('unknown-strict', spec));
  expect(strict.status).toBe(400);
  expect(strict.body.message).toBe(
    'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.a\u0001b", ' +
      'unknown field "spec.bs\\x", unknown field "spec.c\u007fd", unknown field "spec.e\u0085f", ' +
      'unknown field "spec.g\u200bh", unknown field "spec.nl\nx", unknown field "spec.q"uote", ' +
      'unknown field "spec.t\tab", unknown field "spec.\u00e9"',
  );
  const response = await fetch(`${api.base}${WIDGETS}?fieldValidation=Warn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(widget('unknown-warn', spec)),
  });
  expect(response.status).toBe(201);
  // fetch reads each header byte as one character: the UTF-8 text is read back from them.
  const warnings = Buffer.from(response.headers.get('warning') ?? '', 'latin1').toString('utf8');
  expect(warnings).toBe(
    '299 - "unknown field \\"spec.bs\\\\x\\"", 299 - "unknown field \\"spec.g\u200bh\\"", ' +
      '299 - "unknown field \\"spec.q\\"uote\\"", 299 - "unknown field \\"spec.\u00e9\\""',
  );
});

test('a deprecated version warns with the reference text, naming the newer version to use', () => {
  const twoVersions = widgetCRD();
  const v1 = twoVersions.spec.versions[0];
  twoVersions.spec.versions = [
    { ...v1, name: 'v1beta1', storage: false, deprecated: true },
    { ...v1, name: 'v1' },
    { ...v1, name: 'v1alpha1', storage: false, deprecated: true, deprecationWarning: 'old, do not use' },
  ];
  expect(
    customResourceType(twoVersions).versions.map(({ printer: _printer, own: _own, ...version }) => version),
  ).toEqual([
    { version: 'v1', definition: 'com.example.v1.Widget' },
    {
      version: 'v1beta1',
      definition: 'com.example.v1beta1.Widget',
      deprecated: true,
      deprecationWarning: 'example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget',
    },
    {
      version: 'v1alpha1',
      definition: 'com.example.v1alpha1.Widget',
      deprecated: true,
      deprecationWarning: 'old, do not use',
    },
  ]);
});
