/**
 * Huge pages that are not a whole number of pages: refused on create, but a pod an older server
 * stored with them may still be updated, as the reference's usesIndivisibleHugePagesValues lets
 * it (the stored spec's values switch the check off for the update). The reference itself refuses
 * such a pod on create, so the stored one is made here by defaulting alone.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const pods = typeOf('', 'pods');
const INDIVISIBLE =
  'spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi';

function podWithHugePages(amount: string): KubeObject {
  const sent = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      containers: [{ name: 'c', image: 'i', resources: { limits: { 'hugepages-2Mi': amount, memory: '1Gi' } } }],
    },
  } as KubeObject;
  const stored = created(pods, sent, {}).object;
  stored.metadata.resourceVersion = '1';
  return stored;
}

test('a pod stored with indivisible huge pages keeps them through an update', () => {
  const old = podWithHugePages('3Mi');
  expect(created(pods, old, {}).errors).toContain(INDIVISIBLE);
  const { errors } = updated(
    pods,
    old,
    (next) => {
      next.metadata.labels = { changed: 'yes' };
    },
    {},
  );
  expect(errors).toEqual([]);
});

test('a pod stored with whole pages is still held to them on update', () => {
  const old = podWithHugePages('4Mi');
  const { errors } = updated(
    pods,
    old,
    (next) => {
      const container = (next.spec as { containers: { resources: { limits: Record<string, string> } }[] })
        .containers[0];
      container.resources.limits['hugepages-2Mi'] = '3Mi';
    },
    {},
  );
  expect(errors).toContain(INDIVISIBLE);
});
