/**
 * Pod updates of `activeDeadlineSeconds` and `terminationGracePeriodSeconds` against what
 * kube-apiserver 1.34.4 answered (fixtures/pod-deadline-update.json: the members the pod was
 * created with, the members the update changed, null where it removed one, `image` being the
 * first container's, and the answer's causes, each cut at its first line). A deadline may be set
 * or lowered, never raised or removed; a grace period may change only from a negative value to 1.
 * A deadline out of range or raised ends the update's checks there, as the reference's do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Case {
  readonly stored: Record<string, unknown>;
  readonly changed: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded: Readonly<Record<string, Case>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'pod-deadline-update.json'), 'utf8'),
);

const pods = typeOf('', 'pods');

test.each(Object.entries(recorded))('%s', (_id, { stored, changed, code, causes }) => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...structuredClone(stored) },
  } as KubeObject;
  const old = created(pods, pod, {}).object;
  const update = updated(
    pods,
    old,
    (next) => {
      const spec = next.spec as { containers: { image: string }[] } & Record<string, unknown>;
      for (const [member, value] of Object.entries(changed)) {
        if (member === 'image') spec.containers[0].image = value as string;
        else if (value === null) delete spec[member];
        else spec[member] = structuredClone(value);
      }
    },
    {},
  );
  const firstLines = update.errors.map((error) => error.split('\n')[0]);
  expect(firstLines).toEqual(code < 300 ? [] : causes);
});
