/**
 * The pod-level resources a Pod is given by default while PodLevelResources is on, as
 * kube-apiserver 1.34.4 gave them to the same objects (fixtures/recorded-pod-level-resources-
 * defaults.json): only where the spec already has pod-level limits, requests of CPU and memory
 * from what the containers need at once (regular and sidecar containers summed, raised to an init
 * container's need beside the sidecars before it; a sum written in the format of the amount it
 * started from), then of each other limited resource from its limit; huge page limits from the
 * containers'. A template is given none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

type Json = Record<string, unknown>;

interface Case {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  readonly object: KubeObject;
  readonly resources: Json;
  /** A pod's status.qosClass. */
  readonly qosClass?: string;
}

const CASES = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'recorded-pod-level-resources-defaults.json'), 'utf8'),
) as Case[];

function podSpecOf(object: KubeObject): Json {
  const spec = object.spec as Json;
  return object.kind === 'Pod' ? spec : ((spec.template as Json).spec as Json);
}

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const sent = { ...c.object, metadata: { ...c.object.metadata, namespace: 'default' } } as KubeObject;
  const { object, errors } = created(typeOf(c.group, c.resource), sent, {});
  expect(errors).toEqual([]);
  expect(podSpecOf(object).resources).toEqual(c.resources);
  if (c.qosClass !== undefined) expect((object.status as Json).qosClass).toBe(c.qosClass);
});
