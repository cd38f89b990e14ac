import { applyStrategicMergePatch, StrategicMergePatchError } from '../../../server/patch/strategic-merge';
import { rootSchemaNode } from '../../../server/apply/schema-node';
import { schemaData } from '../../../server/schema/definitions';
import type { Definitions } from '../../../server/validation/decode';

const definitions = schemaData().definitions as unknown as Definitions;
const podSchema = rootSchemaNode(definitions, 'io.k8s.api.core.v1.Pod');
const deploymentSchema = rootSchemaNode(definitions, 'io.k8s.api.apps.v1.Deployment');

const container = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: `${name}:1`, ...extra });
const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'p' }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata,
  spec,
});

interface Case {
  readonly name: string;
  readonly schema?: typeof podSchema;
  readonly original: unknown;
  readonly patch: unknown;
  readonly expected: unknown;
}

const cases: Case[] = [
  {
    name: 'maps merge key by key and null deletes a key',
    original: pod({}, { name: 'p', labels: { a: '1', b: '2' } }),
    patch: { metadata: { labels: { b: null, c: '3' } } },
    expected: pod({}, { name: 'p', labels: { a: '1', c: '3' } }),
  },
  {
    // The reference puts patch items first in patch order, slotting a server-only item before a
    // patch item only when both stood in the live list in that order: hence a, c, b.
    name: 'containers merge by name, new ones after the patched ones, nested env merged by name',
    original: pod({
      containers: [
        container('a', {
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '2' },
          ],
        }),
        container('b'),
      ],
    }),
    patch: { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '3' }] }, container('c')] } },
    expected: pod({
      containers: [
        container('a', {
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '3' },
          ],
        }),
        container('c'),
        container('b'),
      ],
    }),
  },
  {
    name: 'ports merge by containerPort',
    original: pod({ containers: [container('a', { ports: [{ containerPort: 80, name: 'http' }] })] }),
    patch: {
      spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, name: 'web' }, { containerPort: 443 }] }] },
    },
    expected: pod({
      containers: [container('a', { ports: [{ containerPort: 80, name: 'web' }, { containerPort: 443 }] })],
    }),
  },
  {
    name: 'a list without a patch strategy (args) is replaced',
    original: pod({ containers: [container('a', { args: ['x', 'y'] })] }),
    patch: { spec: { containers: [{ name: 'a', args: ['z'] }] } },
    expected: pod({ containers: [container('a', { args: ['z'] })] }),
  },
  {
    name: 'a primitive list with merge strategy (finalizers) is unioned',
    original: pod({}, { name: 'p', finalizers: ['a', 'b'] }),
    patch: { metadata: { finalizers: ['b', 'c'] } },
    expected: pod({}, { name: 'p', finalizers: ['a', 'b', 'c'] }),
  },
  {
    name: '$patch: delete on a list item removes the item with that key',
    original: pod({ containers: [container('a'), container('b')] }),
    patch: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } },
    expected: pod({ containers: [container('b')] }),
  },
  {
    name: '$patch: replace in a list makes the patch items the list',
    original: pod({ containers: [container('a'), container('b')] }),
    patch: { spec: { containers: [container('c'), { $patch: 'replace' }] } },
    expected: pod({ containers: [container('c')] }),
  },
  {
    name: '$patch: replace on a map replaces the map',
    original: pod({}, { name: 'p', labels: { a: '1', b: '2' } }),
    patch: { metadata: { labels: { c: '3', $patch: 'replace' } } },
    expected: pod({}, { name: 'p', labels: { c: '3' } }),
  },
  {
    name: '$patch: delete on a map empties it',
    original: pod({}, { name: 'p', labels: { a: '1' } }),
    patch: { metadata: { labels: { $patch: 'delete' } } },
    expected: pod({}, { name: 'p', labels: {} }),
  },
  {
    name: '$deleteFromPrimitiveList removes the named values',
    original: pod({}, { name: 'p', finalizers: ['a', 'b', 'c'] }),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
    expected: pod({}, { name: 'p', finalizers: ['a', 'c'] }),
  },
  {
    name: '$setElementOrder orders merged items, server-only items keep their live place',
    original: pod({ containers: [container('a'), container('b'), container('c')] }),
    patch: {
      spec: {
        '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }],
        containers: [{ name: 'a', image: 'a:2' }],
      },
    },
    expected: pod({ containers: [container('b'), container('c'), container('a', { image: 'a:2' })] }),
  },
  {
    name: '$setElementOrder on a primitive list',
    original: pod({}, { name: 'p', finalizers: ['a', 'b'] }),
    patch: { metadata: { '$setElementOrder/finalizers': ['c', 'b', 'a'], finalizers: ['c'] } },
    expected: pod({}, { name: 'p', finalizers: ['c', 'b', 'a'] }),
  },
  {
    name: '$retainKeys drops keys not listed (deployment strategy, retainKeys strategy)',
    schema: deploymentSchema,
    original: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    expected: { spec: { strategy: { type: 'Recreate' } } },
  },
  {
    name: 'volumes merge by name with $retainKeys inside an item',
    original: pod({ volumes: [{ name: 'v', emptyDir: {} }] }),
    patch: { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'configMap'], configMap: { name: 'cm' } }] } },
    expected: pod({ volumes: [{ name: 'v', configMap: { name: 'cm' } }] }),
  },
  {
    name: 'a new field is taken as sent without its nulls',
    original: pod({}),
    patch: { metadata: { annotations: { a: '1', b: null } } },
    expected: pod({}, { name: 'p', annotations: { a: '1' } }),
  },
  {
    name: 'without a schema every list is replaced',
    schema: undefined,
    original: { spec: { containers: [container('a')] } },
    patch: { spec: { containers: [container('b')] } },
    expected: { spec: { containers: [container('b')] } },
  },
];

describe('strategic merge patch', () => {
  test.each(cases)('$name', ({ original, patch, expected, ...rest }) => {
    const schema = 'schema' in rest ? rest.schema : podSchema;
    const before = structuredClone(original);
    expect(applyStrategicMergePatch(original, patch, schema)).toEqual(expected);
    expect(original).toEqual(before);
  });

  test.each([
    {
      name: 'unknown map directive',
      patch: { metadata: { labels: { $patch: 'merge' } } },
      message: 'unknown patch type: merge in map: map[$patch:merge]',
      code: 500,
    },
    {
      name: 'merge directive in a list',
      patch: { spec: { containers: [{ $patch: 'merge' }] } },
      message: 'merging lists cannot yet be specified in the patch',
      code: 500,
    },
    {
      name: 'item without merge key',
      patch: { spec: { containers: [{ image: 'x' }] } },
      message: 'map: map[image:x] does not contain declared merge key: name',
      code: 500,
    },
    {
      name: 'retainKeys not a list',
      patch: { spec: { $retainKeys: 'x' } },
      message: 'invalid patch format of retainKeys',
      code: 400,
    },
    {
      // kube-apiserver 1.34.4 answered a Deployment's strategy patched so with this 400.
      name: 'patch key outside retainKeys',
      patch: { spec: { $retainKeys: ['a'], hostname: 'h' } },
      message: 'invalid patch format of retainKeys',
      code: 400,
    },
    {
      // kube-apiserver 1.34.4 answers these as the library's errors (a 500, a 400).
      name: 'setElementOrder not a list',
      patch: { spec: { '$setElementOrder/containers': 'x' } },
      message: 'expected a []interface {}, but received a string',
      code: 500,
    },
    {
      name: 'setElementOrder without the slash',
      patch: { metadata: { $setElementOrderX: ['a'] } },
      message: 'invalid patch format of setElementOrder list',
      code: 400,
    },
    {
      name: 'patch that is not an object',
      patch: [1],
      message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
      code: 400,
    },
  ])('rejects: $name', ({ patch, message, code }) => {
    const original = pod({ containers: [container('a')] }, { name: 'p', labels: { a: '1' } });
    let caught: unknown;
    try {
      applyStrategicMergePatch(original, patch, podSchema);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StrategicMergePatchError);
    expect((caught as StrategicMergePatchError).message).toBe(message);
    expect((caught as StrategicMergePatchError).code).toBe(code);
  });
});
