/**
 * The success policy cases fixtures/job-success-policy.json cannot hold. kube-apiserver 1.34.4
 * refused a dry-run create of an Indexed Job of 100,000 completions whose one rule named the
 * 13,000 even indexes from 0 (72,444 bytes, a list that parses) for its length alone; the case
 * is built here for its size. An Indexed Job with a success policy and no completions made the
 * reference panic and drop the connection; capstan answers the 422 of the missing completions,
 * leaving out the rules that compare with them.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

function indexedJob(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j', namespace: 'default' },
    spec: {
      completionMode: 'Indexed',
      parallelism: 10,
      ...spec,
      template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } },
    },
  } as KubeObject;
}

test('succeededIndexes longer than 64 KiB', () => {
  const succeededIndexes = Array.from({ length: 13000 }, (_, i) => String(i * 2)).join(',');
  expect(succeededIndexes.length).toBe(72444);
  const job = indexedJob({ completions: 100000, successPolicy: { rules: [{ succeededIndexes }] } });
  expect(created(typeOf('batch', 'jobs'), job, {}).errors).toEqual([
    'spec.successPolicy.rules[0].succeededIndexes: Too long: may not be more than 65536 bytes',
  ]);
});

test('no completions: only they are reported, where the reference panics', () => {
  const job = indexedJob({ successPolicy: { rules: [{ succeededIndexes: '0-2,9', succeededCount: 5 }] } });
  expect(created(typeOf('batch', 'jobs'), job, {}).errors).toEqual([
    'spec.completions: Required value: when completion mode is Indexed',
  ]);
});
