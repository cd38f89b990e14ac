/**
 * A success policy's succeededIndexes is held to 64 KiB whatever it names: kube-apiserver 1.34.4
 * refused a dry-run create of an Indexed Job of 100,000 completions whose one rule named the
 * 13,000 even indexes from 0 (72,444 bytes, a list that parses) with this one cause alone. The
 * case is built here rather than kept in fixtures/job-success-policy.json, for its size.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

test('succeededIndexes longer than 64 KiB', () => {
  const succeededIndexes = Array.from({ length: 13000 }, (_, i) => String(i * 2)).join(',');
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j', namespace: 'default' },
    spec: {
      completionMode: 'Indexed',
      completions: 100000,
      parallelism: 10,
      successPolicy: { rules: [{ succeededIndexes }] },
      template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } },
    },
  } as KubeObject;
  expect(succeededIndexes.length).toBe(72444);
  expect(created(typeOf('batch', 'jobs'), job, {}).errors).toEqual([
    'spec.successPolicy.rules[0].succeededIndexes: Too long: may not be more than 65536 bytes',
  ]);
});
