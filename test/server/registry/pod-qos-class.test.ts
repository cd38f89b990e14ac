/**
 * The QoS class a new Pod's status records, as kube-apiserver 1.34.4 computed it for the same
 * pods (fixtures/recorded-pod-qos-classes.json, each created under the gates it names): CPU and
 * memory amounts compared as quantities, zero ones ignored, the regular and init containers'
 * summed, guaranteed only when every container's limits name both and the requests equal them;
 * with PodLevelResources on, a spec's pod-level resources decide instead, even empty ones, while
 * with it off they are read as absent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

interface Case {
  readonly name: string;
  readonly gates: Readonly<Record<string, boolean>>;
  readonly object: KubeObject;
  readonly qosClass: string;
}

const CASES = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'recorded-pod-qos-classes.json'), 'utf8')) as Case[];

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const pod = { ...c.object, metadata: { ...c.object.metadata, namespace: 'default' } } as KubeObject;
  const { object, errors } = created(typeOf('', 'pods'), pod, c.gates);
  expect(errors).toEqual([]);
  expect((object.status as { qosClass?: string }).qosClass).toBe(c.qosClass);
});
