/**
 * A PodTemplate's generation, as the reference's podtemplate strategy keeps it: 1 on create, one
 * more for each update that changes the template, none for one that changes metadata alone.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const podTemplates = typeOf('', 'podtemplates');
const TEMPLATE = {
  apiVersion: 'v1',
  kind: 'PodTemplate',
  metadata: { name: 'pt', namespace: 'default' },
  template: { spec: { containers: [{ name: 'c', image: 'i' }] } },
} as KubeObject;

test('counted from 1, by changes of the template', () => {
  const stored = created(podTemplates, TEMPLATE, {});
  expect([stored.errors, stored.object.metadata.generation]).toEqual([[], 1]);
  const relabelled = updated(podTemplates, stored.object, (next) => (next.metadata.labels = { x: 'y' }), {});
  expect(relabelled.object.metadata.generation).toBe(1);
  const changed = updated(
    podTemplates,
    relabelled.object,
    (next) => ((next.template as { metadata?: unknown }).metadata = { labels: { a: 'b' } }),
    {},
  );
  expect([changed.errors, changed.object.metadata.generation]).toEqual([[], 2]);
});
