/**
 * Pod-level resources (a pod spec's `resources`) as kube-apiserver 1.34.4 treated them with the
 * PodLevelResources gate off and on (fixtures/pod-level-resources-gate-off.json, recorded from
 * two servers on one etcd: each case a series of writes, each through the server with the
 * gates it names). With the gate off a create drops them, unjudged (a Windows pod's, an
 * unsupported resource's); an update keeps them only where the stored object has requests or
 * limits, and judges them no more, whatever they become; a pod's spec stays immutable. With the
 * gate on they are judged again, and a pod's QoS class is read from them where it has them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated, type Written } from './gated-fields/write-path';

type Json = Record<string, unknown>;

interface Write {
  readonly gates: Readonly<Record<string, boolean>>;
  /** An update: the pod spec's members set on the stored object (null: removed); a create without. */
  readonly changed?: Json;
  readonly code: number;
  /** `<field>: <message>`, each cut at its first line (the reference appends a diff to some). */
  readonly causes: readonly string[];
  /** The pod spec's resources in the object written (null: none), when it was written. */
  readonly resources: unknown;
  /** A pod's status.qosClass, when it was written. */
  readonly qosClass?: string;
}

interface Case {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  readonly object: KubeObject;
  readonly writes: readonly Write[];
}

const CASES = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'pod-level-resources-gate-off.json'), 'utf8'),
) as Case[];

/**
 * The pod spec's resources as written out: Go leaves empty resource lists out (capstan's encoder
 * does too), where the object before encoding still has them.
 */
function writtenResources(object: KubeObject): unknown {
  const resources = podSpecOf(object).resources as Json | undefined;
  if (resources === undefined) return null;
  return Object.fromEntries(
    Object.entries(resources).filter(([, list]) => Object.keys((list as Json | null) ?? {}).length > 0),
  );
}

function podSpecOf(object: KubeObject): Json {
  const spec = object.spec as Json;
  return object.kind === 'Pod' ? spec : ((spec.template as Json).spec as Json);
}

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const type = typeOf(c.group, c.resource);
  let stored: KubeObject | undefined;
  for (const write of c.writes) {
    let written: Written;
    if (write.changed === undefined) {
      written = created(type, { ...c.object, metadata: { ...c.object.metadata, namespace: 'default' } }, write.gates);
    } else {
      const changed = write.changed;
      written = updated(
        type,
        stored!,
        (next) => {
          const spec = podSpecOf(next);
          for (const [member, value] of Object.entries(changed)) {
            if (value === null) delete spec[member];
            else spec[member] = structuredClone(value);
          }
        },
        write.gates,
      );
    }
    expect(written.errors.map((error) => error.split('\n')[0])).toEqual(write.code < 300 ? [] : write.causes);
    if (write.code >= 300) continue;
    stored = written.object;
    expect(writtenResources(written.object)).toEqual(write.resources);
    if (write.qosClass !== undefined) expect((written.object.status as Json).qosClass).toBe(write.qosClass);
  }
});
