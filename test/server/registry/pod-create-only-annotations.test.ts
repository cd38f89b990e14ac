/**
 * Pod writes that add, change, remove or keep the mirror pod annotation or a container AppArmor
 * annotation, against what kube-apiserver 1.34.4 answered (fixtures/pod-mirror-annotation-update.json,
 * fixtures/pod-apparmor-annotation-update.json: the pod created, the annotations the update or the
 * status write then sent, and the answer). Only a create may set them, on the pod or its
 * status alike; changes and removals are reported before additions. A main update runs the pod's
 * annotation checks twice, so e.g. an invalid deletion cost is reported twice; a status write
 * runs them once. The cases that keep the annotation are controls, answered 200 either way.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Case {
  readonly target: 'main' | 'status';
  readonly object: KubeObject;
  readonly annotationsAfter: Record<string, string>;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded: readonly (readonly [string, Case])[] = [
  'pod-mirror-annotation-update.json',
  'pod-apparmor-annotation-update.json',
].flatMap((fixture) =>
  Object.entries(JSON.parse(readFileSync(join(__dirname, 'fixtures', fixture), 'utf8')) as Record<string, Case>),
);
const pods = typeOf('', 'pods');

test.each(recorded)('%s', (_name, { target, object, annotationsAfter, code, causes }) => {
  const pod = { ...object, metadata: { ...object.metadata, namespace: 'default' } };
  const stored = created(pods, pod, {});
  expect(stored.errors).toEqual([]);
  const update = updated(
    pods,
    stored.object,
    (next) => {
      next.metadata.annotations = { ...annotationsAfter };
    },
    {},
    target,
  );
  expect(update.errors).toEqual(code < 300 ? [] : causes);
  if (code < 300) expect(update.object.metadata.annotations).toEqual(annotationsAfter);
});
