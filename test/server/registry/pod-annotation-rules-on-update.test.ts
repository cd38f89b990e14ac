/**
 * Later writes are held to the pod annotation rules again, as kube-apiserver 1.34.4 answered
 * them (fixtures/pod-annotation-rules-on-update.json: the object created, the one the update or
 * status write then sent, and the answer). A pod's main update runs the annotation checks twice,
 * so a bad tolerations or seccomp annotation is reported twice; its status write runs them once.
 * A pod's seccomp annotation may disagree with its profile field after the create, which alone
 * compares them; a Deployment's template is compared on every write.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Case {
  readonly group: string;
  readonly resource: string;
  readonly target: 'main' | 'status';
  readonly object: KubeObject;
  /** The object as the update sent it: its annotations and spec replace the stored ones. */
  readonly update: KubeObject;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded = Object.entries(
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'pod-annotation-rules-on-update.json'), 'utf8')) as Record<
    string,
    Case
  >,
);

test.each(recorded)('%s', (_name, { group, resource, target, object, update, code, causes }) => {
  const type = typeOf(group, resource);
  const stored = created(type, { ...object, metadata: { ...object.metadata, namespace: 'default' } }, {});
  expect(stored.errors).toEqual([]);
  const written = updated(
    type,
    stored.object,
    (next) => {
      next.metadata.annotations = structuredClone(update.metadata.annotations);
      next.spec = structuredClone(update.spec);
    },
    {},
    target,
  );
  expect(written.errors).toEqual(code < 300 ? [] : causes);
});
