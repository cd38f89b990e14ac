/**
 * Init containers' resize policies with InPlacePodVerticalScaling off, as kube-apiserver 1.34.4
 * answered (fixtures/resize-policy-gate-off.json, recorded from two servers on one etcd: each
 * object created with the gate on, then updated through a server with it off). A spec that
 * already used resize policies keeps them, so an init container's (a sidecar's too) is refused,
 * its value printed as the internal struct, unless a stored sidecar had one; a spec that used
 * none loses the new ones unjudged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

type Json = Record<string, unknown>;

interface Case {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  /** Created with the gates at their defaults. */
  readonly object: KubeObject;
  /** The pod spec's members the update sets, with InPlacePodVerticalScaling off. */
  readonly changed: Json;
  readonly code: number;
  /** `<field>: <message>`, as the reference's Status listed them. */
  readonly causes: readonly string[];
  /** Each container's resize policy in the object written (null: none), by list, when written. */
  readonly resizePolicies?: Readonly<Record<'initContainers' | 'containers', readonly unknown[]>>;
}

const CASES = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'resize-policy-gate-off.json'), 'utf8'),
) as readonly Case[];

function podSpecOf(object: KubeObject): Json {
  const spec = object.spec as Json;
  return object.kind === 'Pod' ? spec : ((spec.template as Json).spec as Json);
}

function resizePoliciesOf(object: KubeObject): Json {
  const spec = podSpecOf(object);
  return Object.fromEntries(
    (['initContainers', 'containers'] as const).map((list) => [
      list,
      ((spec[list] as Json[] | undefined) ?? []).map((container) => container.resizePolicy ?? null),
    ]),
  );
}

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const type = typeOf(c.group, c.resource);
  const made = created(type, { ...c.object, metadata: { ...c.object.metadata, namespace: 'default' } }, {});
  expect(made.errors).toEqual([]);
  const written = updated(type, made.object, (next) => Object.assign(podSpecOf(next), structuredClone(c.changed)), {
    InPlacePodVerticalScaling: false,
  });
  expect(written.errors).toEqual(c.causes);
  if (c.resizePolicies !== undefined) expect(resizePoliciesOf(written.object)).toEqual(c.resizePolicies);
});
