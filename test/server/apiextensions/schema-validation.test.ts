import { schemaProblems } from '../../../server/apiextensions/schema-validation';
import { pruneBySchema } from '../../../server/apiextensions/schema-pruning';
import { applySchemaDefaults, dropDisallowedNulls } from '../../../server/apiextensions/schema-defaulting';
import { WIDGET_SCHEMA } from './fixtures';

function widget(spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec };
}

function texts(object: Record<string, unknown>): string[] {
  const { values, embedded, lists } = schemaProblems(object, WIDGET_SCHEMA);
  return [...values, ...embedded, ...lists].map((error) => `${error.field}: ${error.detail}`);
}

describe('schemaProblems', () => {
  test.each<[string, Record<string, unknown>, string[]]>([
    ['a valid object', { color: 'red', replicas: 3, port: 'http', tags: ['a', 'b'] }, []],
    ['a missing required field', {}, ['spec.color: Required value']],
    ['an enum miss', { color: 'green' }, ['spec.color: Unsupported value: "green": supported values: "red", "blue"']],
    [
      'a wrong type',
      { color: 'red', replicas: 'three' },
      ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    ],
    [
      'a number below the minimum',
      { color: 'red', replicas: -1 },
      ['spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0'],
    ],
    [
      'a number above the maximum',
      { color: 'red', replicas: 11 },
      ['spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10'],
    ],
    [
      'a pattern miss',
      { color: 'red', name: 'A1' },
      [`spec.name: Invalid value: "A1": spec.name in body should match '^[a-z]+$'`],
    ],
    ['a string too long', { color: 'red', name: 'abcdefghij' }, ['spec.name: Too long: may not be more than 8 bytes']],
    [
      'a bad format',
      { color: 'red', email: 'nope' },
      ['spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"'],
    ],
    [
      'int-or-string with a list',
      { color: 'red', port: [1] },
      ['spec.port: Invalid value: "array": spec.port in body must be of type integer,string: "array"'],
    ],
    [
      'too many items',
      { color: 'red', tags: ['a', 'b', 'c', 'd'] },
      ['spec.tags: Too many: 4: must have at most 3 items'],
    ],
    ['a duplicate in a set', { color: 'red', tags: ['a', 'a'] }, ['spec.tags[1]: Duplicate value: "a"']],
    [
      'a duplicate key in a map list',
      {
        color: 'red',
        ports: [
          { name: 'x', port: 1 },
          { name: 'x', port: 2 },
        ],
      },
      ['spec.ports[1]: Duplicate value: {"name":"x"}'],
    ],
    [
      'a map value of the wrong type',
      { color: 'red', labels: { a: 1 } },
      ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"'],
    ],
    [
      'null where not nullable',
      { color: null },
      ['spec.color: Invalid value: "null": spec.color in body must be of type string: "null"'],
    ],
    ['null where nullable', { color: 'red', note: null }, []],
    [
      'an embedded resource without kind',
      { color: 'red', template: { apiVersion: 'v1' } },
      ['spec.template.kind: Required value'],
    ],
  ])('%s', (_name, spec, expected) => {
    expect(texts(widget(spec))).toEqual(expected);
  });
});

describe('pruneBySchema', () => {
  test('removes undeclared members, keeps preserved ones and the meta fields, and names what it removed', () => {
    const object = widget({
      color: 'red',
      extra: 1,
      ports: [{ name: 'a', junk: true }],
      free: { anything: 1, fixed: { a: 'x', b: 'y' } },
    });
    object.unknownTop = 1;
    expect(pruneBySchema(object, WIDGET_SCHEMA)).toEqual([
      'spec.extra',
      'spec.free.fixed.b',
      'spec.ports[0].junk',
      'unknownTop',
    ]);
    expect(object).toEqual(widget({ color: 'red', ports: [{ name: 'a' }], free: { anything: 1, fixed: { a: 'x' } } }));
  });

  test('keeps the apiVersion, kind and metadata of embedded resources', () => {
    const object = widget({
      color: 'red',
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 1 } },
    });
    expect(pruneBySchema(object, WIDGET_SCHEMA)).toEqual([]);
  });
});

describe('applySchemaDefaults', () => {
  test('fills missing and disallowed-null members, leaves other nulls to the decoder', () => {
    const object = widget({ color: 'red', name: null });
    applySchemaDefaults(object, WIDGET_SCHEMA);
    expect(object.spec).toEqual({ color: 'red', replicas: 1, name: null });
    const nulled = widget({ color: 'red', replicas: null, note: null });
    applySchemaDefaults(nulled, WIDGET_SCHEMA);
    expect(nulled.spec).toEqual({ color: 'red', replicas: 1, note: null });
  });
});

describe('dropDisallowedNulls', () => {
  test('drops the nulls the schema does not allow and no default replaces, as a decoder does', () => {
    const object = widget({ color: 'red', name: null, replicas: null, note: null });
    dropDisallowedNulls(object, WIDGET_SCHEMA);
    expect(object.spec).toEqual({ color: 'red', replicas: null, note: null });
  });
});
