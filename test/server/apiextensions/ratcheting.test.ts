/**
 * Validation ratcheting (CRDValidationRatcheting, on in 1.34): on update, errors on values that
 * did not change are dropped; schema errors silently, rule failures as warnings. The cases are the
 * reference's e2e specs (test/e2e/apimachinery/crd_validation_ratcheting.go) and answers of
 * kube-apiserver v1.34.4 to the same requests.
 */
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import type { JSONSchemaProps } from '../../../server/apiextensions/crd-types';
import { RatchetPosition } from '../../../server/apiextensions/ratcheting';
import { schemaProblems } from '../../../server/apiextensions/schema-validation';
import { validateByRules, validationRuleErrors } from '../../../server/apiextensions/validation-rules';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import { FieldPath } from '../../../server/status/field-errors';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';
import { widgetCRD } from './fixtures';
import { BUILTIN_TYPES } from '../../../server/builtin-types';

const NOT_FOO: JSONSchemaProps = { type: 'string', enum: ['notfoo'] };

/** The e2e spec's schema: one constrained field reached through each correlatable structure, and two uncorrelatable lists. */
const ENUM_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    field: NOT_FOO,
    struct: { type: 'object', properties: { field: NOT_FOO } },
    list: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['key'],
      items: { type: 'object', required: ['key'], properties: { key: { type: 'string' }, field: NOT_FOO } },
    },
    map: { type: 'object', additionalProperties: { type: 'object', properties: { field: NOT_FOO } } },
    atomicArray: { type: 'array', items: { type: 'string', enum: ['notfoo'] } },
    setArray: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', enum: ['notfoo'] } },
  },
};

function resource(body: Record<string, unknown>, labels?: Record<string, string>) {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', ...(labels ? { labels } : {}) },
    ...body,
  };
}

function schemaErrors(object: unknown, old: unknown, schema: JSONSchemaProps): string[] {
  const update = old === undefined ? undefined : { old, ratchet: RatchetPosition.of(object, old, schema) };
  const { values, embedded, lists } = schemaProblems(object, schema, update);
  return [...values, ...embedded, ...lists].map((error) => error.field);
}

describe('schema errors', () => {
  const stored = resource({
    field: 'foo',
    struct: { field: 'foo' },
    list: [{ key: 'first', field: 'foo' }],
    map: { foo: { field: 'foo' } },
  });

  test('unchanged correlatable values keep their errors out of an update that changes something else', () => {
    const updated = { ...stored, metadata: { ...stored.metadata, labels: { foo: 'bar' } } };
    expect(schemaErrors(updated, stored, ENUM_SCHEMA)).toEqual([]);
    // A create (or the same object without its stored self) has them all.
    expect(schemaErrors(updated, undefined, ENUM_SCHEMA)).toEqual([
      'field',
      'struct.field',
      'list[0].field',
      'map.foo.field',
    ]);
  });

  test('list-map items are matched by key, not by index; a new item or a changed value is checked', () => {
    const updated = resource({
      field: 'bar',
      struct: { field: 'foo' },
      list: [
        { key: 'second', field: 'foo' },
        { key: 'first', field: 'foo' },
      ],
      map: { foo: { field: 'foo' }, bar: { field: 'foo' } },
    });
    expect(schemaErrors(updated, stored, ENUM_SCHEMA)).toEqual(['field', 'list[0].field', 'map.bar.field']);
  });

  test('items of atomic and set lists are not matched: a changed list has all its errors, an unchanged one none', () => {
    const before = resource({ setArray: ['foo', 'bar'], atomicArray: ['foo', 'bar'] });
    const grown = resource({ setArray: ['foo', 'bar', 'notfoo'], atomicArray: ['foo', 'bar', 'notfoo'] });
    expect(schemaErrors(grown, before, ENUM_SCHEMA)).toEqual([
      'setArray[0]',
      'setArray[1]',
      'atomicArray[0]',
      'atomicArray[1]',
    ]);
    const relabelled = { ...before, metadata: { name: 'w', labels: { a: 'b' } } };
    expect(schemaErrors(relabelled, before, ENUM_SCHEMA)).toEqual([]);
  });

  test('an object holding a member its schema does not declare is never unchanged (kube-apiserver v1.34.4 answers the same)', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          maxProperties: 1,
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { k: { type: 'string' } },
        },
        known: { type: 'object', maxProperties: 1, properties: { a: { type: 'string' }, b: { type: 'string' } } },
      },
    };
    const stored = resource({ spec: { k: 'x', u: 1 }, known: { a: '1', b: '2' } });
    expect(schemaErrors({ ...stored, metadata: { name: 'w', labels: { x: 'y' } } }, stored, schema)).toEqual(['spec']);
  });

  test('set duplicates are checked only when the stored object had none', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } },
    };
    expect(schemaErrors(resource({ tags: ['a', 'a', 'b'] }), resource({ tags: ['a', 'a'] }), schema)).toEqual([]);
    expect(schemaErrors(resource({ tags: ['a', 'a'] }), resource({ tags: ['a'] }), schema)).toEqual(['tags[1]']);
  });
});

const RULE = [{ rule: 'self == "foo"' }];
const OPTIONAL_CHANGE = [{ rule: '!oldSelf.hasValue() || self != oldSelf.value()', optionalOldSelf: true }];

function ruleSchema(rules: JSONSchemaProps['x-kubernetes-validations']): JSONSchemaProps {
  const field: JSONSchemaProps = { type: 'string', 'x-kubernetes-validations': rules };
  return {
    type: 'object',
    properties: {
      field,
      list: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['key'],
        items: { type: 'object', required: ['key'], properties: { key: { type: 'string' }, field } },
      },
      map: { type: 'object', additionalProperties: { type: 'object', properties: { field } } },
    },
  };
}

function ruleOutcome(object: unknown, old: unknown, schema: JSONSchemaProps): { errors: string[]; warnings: string[] } {
  const warnings: string[] = [];
  const update = old === undefined ? undefined : { ratchet: RatchetPosition.of(object, old, schema), warnings };
  const errors = validateByRules(object, old, schema, update).map((error) => `${error.field}: ${error.detail}`);
  return { errors, warnings };
}

describe('rule failures', () => {
  const stored = resource({ field: 'notfoo', list: [{ key: 'a', field: 'notfoo' }], map: { a: { field: 'notfoo' } } });

  test('on unchanged values are warnings; on new or changed values, errors', () => {
    const updated = resource({
      field: 'notfoo',
      list: [
        { key: 'a', field: 'notfoo' },
        { key: 'b', field: 'bar' },
      ],
      map: { a: { field: 'notfoo' } },
    });
    expect(ruleOutcome(updated, stored, ruleSchema(RULE))).toEqual({
      errors: ['list[1].field: Invalid value: "string": failed rule: self == "foo"'],
      warnings: [
        'field: Invalid value: "string": failed rule: self == "foo"',
        'list[0].field: Invalid value: "string": failed rule: self == "foo"',
        'map[a].field: Invalid value: "string": failed rule: self == "foo"',
      ],
    });
  });

  test('transition rules are not ratcheted', () => {
    const schema = ruleSchema([{ rule: 'self != oldSelf' }]);
    expect(ruleOutcome(stored, stored, schema).errors).toEqual([
      'field: Invalid value: "string": failed rule: self != oldSelf',
      'list[0].field: Invalid value: "string": failed rule: self != oldSelf',
      'map[a].field: Invalid value: "string": failed rule: self != oldSelf',
    ]);
  });

  test('optionalOldSelf: the rule compiles with oldSelf optional, and runs without an old value', () => {
    const schema = ruleSchema(OPTIONAL_CHANGE);
    expect(validationRuleErrors(schema, FieldPath.root('spec', 'validation', 'openAPIV3Schema'))).toEqual([]);
    // Created: no old values, oldSelf.hasValue() is false, the rule holds.
    expect(ruleOutcome(stored, undefined, schema).errors).toEqual([]);
    // Unchanged: the rule fails (it is a transition rule, so not ratcheted).
    expect(ruleOutcome(stored, stored, schema).errors).toHaveLength(3);
    // Every value changed, and a new list item without an old self: all hold.
    const changed = resource({
      field: 'new',
      list: [
        { key: 'a', field: 'new' },
        { key: 'b', field: 'x' },
      ],
      map: { a: { field: 'new' } },
    });
    expect(ruleOutcome(changed, stored, schema).errors).toEqual([]);
  });
});

describe('through the API', () => {
  const lax: JSONSchemaProps = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'string' } } } },
  };
  const strict: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          color: { type: 'string', 'x-kubernetes-validations': [{ rule: "self == 'ok'" }] },
          size: { type: 'string', maxLength: 2 },
        },
      },
    },
  };
  const crdWith = (schema: JSONSchemaProps) =>
    widgetCRD({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] });
  let testStore: TestStore;
  let laxApi: ServedApi;
  let strictApi: ServedApi;
  const WIDGET = '/apis/example.com/v1/namespaces/default/widgets/w';

  beforeAll(async () => {
    testStore = await openTestStore();
    laxApi = await serveResourceApi(testStore.storageFor, {
      registry: new ResourceTypeRegistry({ types: [...BUILTIN_TYPES, customResourceType(crdWith(lax))] }),
    });
    strictApi = await serveResourceApi(testStore.storageFor, {
      registry: new ResourceTypeRegistry({ types: [...BUILTIN_TYPES, customResourceType(crdWith(strict))] }),
    });
  });

  afterAll(async () => {
    await laxApi.close();
    await strictApi.close();
    await testStore.close();
  });

  async function patch(
    api: ServedApi,
    body: unknown,
  ): Promise<{ status: number; warnings: string | null; message?: string }> {
    const response = await fetch(api.base + WIDGET, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as { message?: string };
    return { status: response.status, warnings: response.headers.get('warning'), message: json.message };
  }

  test('an object the tightened schema refuses still takes a label; its rule failure comes back as a warning', async () => {
    const created = await fetch(laxApi.base + '/apis/example.com/v1/namespaces/default/widgets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(resource({ spec: { color: 'red', size: 'large' } })),
    });
    expect(created.status).toBe(201);
    const labelled = await patch(strictApi, { metadata: { labels: { a: 'b' } } });
    expect(labelled).toMatchObject({
      status: 200,
      warnings: `299 - "spec.color: Invalid value: \\"string\\": failed rule: self == 'ok'"`,
    });
    // Changing the too-long value is checked, and the rules are then not run (kube-apiserver's words).
    const resized = await patch(strictApi, { spec: { size: 'huge' } });
    expect(resized.status).toBe(422);
    expect(resized.message).toBe(
      'Widget.example.com "w" is invalid: [spec.size: Too long: may not be more than 2 bytes, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });
});
