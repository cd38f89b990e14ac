/**
 * The replay of a pod update recorded from the reference: a pod created with `stored` spec
 * members (beside one container), then updated with `changed` spec members set (null: removed),
 * through capstan's write path. Its causes, each cut at its first line, as the fixtures keep
 * them (the reference appends a Go diff to the forbidden one).
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const pods = typeOf('', 'pods');

export function podUpdateCauses(stored: Record<string, unknown>, changed: Record<string, unknown>): string[] {
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
      const spec = next.spec as Record<string, unknown>;
      for (const [member, value] of Object.entries(changed)) {
        if (value === null) delete spec[member];
        else spec[member] = structuredClone(value);
      }
    },
    {},
  );
  return update.errors.map((error) => error.split('\n')[0]);
}
