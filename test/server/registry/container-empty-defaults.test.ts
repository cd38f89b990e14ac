/**
 * Containers sent with their defaulted strings empty (`imagePullPolicy`, `terminationMessagePath`,
 * `terminationMessagePolicy`, a port's `protocol`), as kube-apiserver 1.34.4 answered them in a
 * Pod and in a PodTemplate (fixtures/container-empty-defaults.json): Go's defaults fill a string
 * they find empty, so the writes pass with every one filled.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

type Json = Record<string, unknown>;

interface Answer {
  readonly code: number;
  readonly initContainers: Json[];
  readonly containers: Json[];
}

const recorded: { readonly spec: Json; readonly pod: Answer; readonly podTemplate: Answer } = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'container-empty-defaults.json'), 'utf8'),
);

test.each([
  ['a Pod', typeOf('', 'pods'), { kind: 'Pod', spec: recorded.spec }, (object: Json) => object.spec, recorded.pod],
  [
    'a PodTemplate',
    typeOf('', 'podtemplates'),
    { kind: 'PodTemplate', template: { spec: recorded.spec } },
    (object: Json) => (object.template as Json).spec,
    recorded.podTemplate,
  ],
])('%s', (_, type, body, specOf, expected) => {
  expect(expected.code).toBe(201);
  const sent = { apiVersion: 'v1', metadata: { name: 'p', namespace: 'default' }, ...body } as KubeObject;
  const { object, errors } = created(type, sent, {});
  expect(errors).toEqual([]);
  const spec = specOf(object as unknown as Json) as Json;
  expect(spec.initContainers).toEqual(expected.initContainers);
  expect(spec.containers).toEqual(expected.containers);
});
