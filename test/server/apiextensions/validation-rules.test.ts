/** x-kubernetes-validations: compiled at CRD write time, evaluated on custom resource writes. */
import { FieldPath } from '../../../server/status/field-errors';
import type { JSONSchemaProps } from '../../../server/apiextensions/crd-types';
import {
  preexistingExpressions,
  validateByRules,
  validationRuleErrors,
} from '../../../server/apiextensions/validation-rules';

const SCHEMA: JSONSchemaProps = {
  type: 'object',
  'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('w')", message: 'names start with w' }],
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        {
          rule: 'self.min <= self.max',
          messageExpression: "'min ' + string(self.min) + ' is above max ' + string(self.max)",
        },
        { rule: 'self.mode == oldSelf.mode', message: 'mode is immutable', fieldPath: '.mode' },
        { rule: 'self.max < 100', reason: 'FieldValueForbidden' },
      ],
      properties: {
        min: { type: 'integer' },
        max: { type: 'integer' },
        mode: { type: 'string' },
      },
    },
  },
};

/** List-map items are matched to their old selves by key; rules over the list see its items as objects. */
const LIST_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: "self.items.size() == 0 || self.items[0].name != 'first'", message: 'no item named first comes first' },
      ],
      properties: {
        items: {
          type: 'array',
          'x-kubernetes-validations': [
            { rule: "self.all(i, i.name != '')", message: 'items have names' },
            {
              rule: "self.map(i, i.name).filter(n, n == 'x').size() <= 1 && self[self.size() - 1].name != 'last'",
              message: 'no item named last comes last',
            },
          ],
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              size: {
                type: 'integer',
                'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'size may only grow' }],
              },
            },
          },
        },
      },
    },
  },
};

function widget(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec };
}

function texts(object: unknown, old?: unknown, schema = SCHEMA): string[] {
  return validateByRules(object, old, schema).map((error) => `${error.field}: ${error.detail}`);
}

test('rules pass on a valid object; transition rules wait for an old object', () => {
  expect(texts(widget('w1', { min: 1, max: 2, mode: 'a' }))).toEqual([]);
  expect(texts(widget('w1', { items: [{ name: 'x', size: 1 }] }), undefined, LIST_SCHEMA)).toEqual([]);
});

test('failures report the message, the messageExpression, the default text, the fieldPath and the reason', () => {
  expect(texts(widget('a1', { min: 300, max: 200, mode: 'a' }))).toEqual([
    '<nil>: Invalid value: "object": names start with w',
    'spec: Invalid value: "object": min 300 is above max 200',
    'spec: Forbidden: failed rule: self.max < 100',
  ]);
});

test('transition rules compare with the stored object, also in list-map items matched by key', () => {
  expect(texts(widget('w1', { min: 1, max: 2, mode: 'b' }), widget('w1', { min: 1, max: 2, mode: 'a' }))).toEqual([
    'spec.mode: Invalid value: "object": mode is immutable',
  ]);
  const old = widget('w1', {
    items: [
      { name: 'x', size: 5 },
      { name: 'y', size: 1 },
    ],
  });
  const next = widget('w1', {
    items: [
      { name: 'y', size: 2 },
      { name: 'x', size: 4 },
      { name: 'z', size: 0 },
    ],
  });
  expect(texts(next, old, LIST_SCHEMA)).toEqual(['spec.items[1].size: Invalid value: "integer": size may only grow']);
});

test('rules over a list of objects read its items by index and by macro', () => {
  expect(
    texts(widget('w1', { items: [{ name: 'first' }, { name: '' }, { name: 'last' }] }), undefined, LIST_SCHEMA),
  ).toEqual([
    'spec: Invalid value: "object": no item named first comes first',
    'spec.items: Invalid value: "array": items have names',
    'spec.items: Invalid value: "array": no item named last comes last',
  ]);
});

test('CRD write time: compile errors and rule field checks with the reference texts', () => {
  const bad: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { x: { type: 'integer' } },
        'x-kubernetes-validations': [
          { rule: 'self.x >' },
          { rule: 'self.y == 1' },
          { rule: 'self.x == 1', optionalOldSelf: true },
          { rule: '' },
        ],
      },
    },
  };
  const errors = validationRuleErrors(
    bad,
    FieldPath.root('spec', 'versions').index(0).child('schema', 'openAPIV3Schema'),
  );
  const prefix = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations';
  expect(errors.map((error) => error.field)).toEqual([`${prefix}[3].rule`]);
  const compiled = validationRuleErrors(
    {
      ...bad,
      properties: {
        spec: {
          ...bad.properties!.spec,
          'x-kubernetes-validations': bad.properties!.spec['x-kubernetes-validations']!.slice(0, 3),
        },
      },
    },
    FieldPath.root('s'),
  );
  // kube-apiserver v1.34.4 shows the rule as the JSON of its internal ValidationRule.
  expect(compiled.map((error) => `${error.field}: ${error.detail.split('\n')[0]}`)).toEqual([
    `s.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.x \\u003e","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`,
    `s.properties[spec].x-kubernetes-validations[1].rule: Invalid value: {"Rule":"self.y == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'y'`,
    's.properties[spec].x-kubernetes-validations[2].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule',
  ]);
});

test('CRD write time: a rule whose worst case is over budget is refused with the reference texts; bounds make it fit', () => {
  // Each name matched against every other: without maxItems and maxLength the worst case is what a
  // 3 MiB request can hold. kube-apiserver v1.34.4 refuses the same schema with these three errors.
  const names = (bounds: Partial<JSONSchemaProps>, items: JSONSchemaProps): JSONSchemaProps => ({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          names: {
            type: 'array',
            ...bounds,
            items,
            'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x.matches(y)))' }],
          },
        },
      },
    },
  });
  const root = FieldPath.root('spec', 'validation', 'openAPIV3Schema');
  const rule = 'spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule';
  const advice =
    '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
  expect(
    validationRuleErrors(names({}, { type: 'string' }), root).map((error) => `${error.field}: ${error.detail}`),
  ).toEqual([
    `${rule}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${advice}`,
    `${rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
    `spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${advice}`,
  ]);
  expect(validationRuleErrors(names({ maxItems: 5 }, { type: 'string', maxLength: 10 }), root)).toEqual([]);
});

describe('lists marked set or map compare without order, as the left operand says (answers of kube-apiserver 1.34)', () => {
  const setOf: JSONSchemaProps = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } };
  const mapOf: JSONSchemaProps = {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['k'],
    items: { type: 'object', required: ['k'], properties: { k: { type: 'string' }, v: { type: 'integer' } } },
  };
  const schema = (rule: string): JSONSchemaProps => ({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule, message: 'unequal' }],
        properties: {
          s: setOf,
          s2: setOf,
          a: { type: 'array', items: { type: 'string' } },
          m: mapOf,
          o: { type: 'object', properties: { s: setOf } },
        },
      },
    },
  });
  const before = widget('w1', {
    s: ['a', 'b'],
    s2: ['b', 'a'],
    a: ['a', 'b'],
    o: { s: ['a', 'b'] },
    m: [
      { k: 'p', v: 1 },
      { k: 'q', v: 2 },
    ],
  });
  const after = widget('w1', {
    s: ['b', 'a'],
    s2: ['b', 'a'],
    a: ['a', 'b'],
    o: { s: ['b', 'a'] },
    m: [
      { k: 'q', v: 2 },
      { k: 'p', v: 1 },
    ],
  });
  test.each([
    ["self.s == ['a', 'b']", true],
    ["['a', 'b'] == self.s", false],
    ["self.s != ['a', 'b']", false],
    ["self.s == ['c', 'a']", false],
    ["self.s == ['b', 'b', 'a']", false],
    ['self.s == self.s2', true],
    ['self.a == self.s2', false],
    ['self.s2 == self.a', true],
    // Same size, and every item of the right in the left: the reference's set equality says so too.
    ["self.s == ['a', 'a']", true],
    ['self.s == oldSelf.s', true],
    ['self.m == oldSelf.m', true],
    ['self.o == oldSelf.o', true],
    ["self.m == oldSelf.m.map(i, i).filter(i, i.k == 'p')", false],
  ])('%s is %s', (rule, holds) => {
    expect(texts(after, before, schema(rule))).toEqual(holds ? [] : ['spec: Invalid value: "object": unequal']);
  });
  test('a map list item that changed is unequal', () => {
    const changed = widget('w1', {
      m: [
        { k: 'q', v: 3 },
        { k: 'p', v: 1 },
      ],
    });
    expect(texts(changed, before, schema('self.m == oldSelf.m'))).toEqual(['spec: Invalid value: "object": unequal']);
  });
});

describe('environments: new rules compile for compatibility version 1.33, stored ones with all of 1.34', () => {
  // ext.Lists (sort, reverse) arrived in 1.34's base environment, after the compatibility version.
  const SORTED: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          {
            rule: 'self.names.sort() == self.names',
            messageExpression: "'names ' + self.names.reverse().join(',') + ' are not sorted'",
          },
        ],
        properties: { names: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } } },
      },
    },
  };
  const at = FieldPath.root('s');
  const fields = (preexisting?: Parameters<typeof validationRuleErrors>[2]) =>
    validationRuleErrors(SORTED, at, preexisting).map((error) => error.field);

  test('a new CRD, or a changed rule, may not use what 1.33 lacks', () => {
    // kube-apiserver 1.34.4 refuses the same rule in a new CRD with this detail (422).
    expect(validationRuleErrors(SORTED, at)[0].detail).toContain(
      "compilation failed: ERROR: <input>:1:16: undeclared reference to 'sort' (in container '')",
    );
    expect(fields()).toEqual([
      's.properties[spec].x-kubernetes-validations[0].rule',
      's.properties[spec].x-kubernetes-validations[0].messageExpression',
    ]);
  });

  test('an update keeps the rules and messages the old CRD already had', () => {
    expect(fields(preexistingExpressions([SORTED]))).toEqual([]);
    const ruleOnly = preexistingExpressions([
      {
        ...SORTED,
        properties: {
          spec: {
            ...SORTED.properties!.spec,
            'x-kubernetes-validations': [{ rule: 'self.names.sort() == self.names' }],
          },
        },
      },
    ]);
    expect(fields(ruleOnly)).toEqual(['s.properties[spec].x-kubernetes-validations[0].messageExpression']);
  });

  test('custom resources are checked with the stored rules', () => {
    expect(texts(widget('w1', { names: ['a', 'b'] }), undefined, SORTED)).toEqual([]);
    expect(texts(widget('w1', { names: ['b', 'a'] }), undefined, SORTED)).toEqual([
      'spec: Invalid value: "object": names a,b are not sorted',
    ]);
  });
});
