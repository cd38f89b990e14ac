/**
 * The replay of an update recorded from the reference, for any kind: the object is created
 * through capstan's write path (then, where `storedAs` says, changed as a value written into
 * etcd behind the server's back would be: what an older server let in), then the members at
 * `changed`'s dotted paths (a number is a list index) are set, or removed where the value is
 * null, and the update is validated. Its
 * causes, each cut at its first line, as the fixtures keep them (the reference appends a Go
 * diff to some forbidden ones).
 */
import type { KubeObject } from '../../../api/objects';
import type { ResourceType } from '../../../server/registry/types';
import { created, updated } from './gated-fields/write-path';

type Members = Record<string | number, unknown>;

/** Members at dotted paths, each set or (null) removed. */
export type MemberChanges = Readonly<Record<string, unknown>>;

function setAt(object: Members, path: string, value: unknown): void {
  const segments = path.split('.').map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  let current = object;
  segments.slice(0, -1).forEach((segment, i) => {
    if (current[segment] == null) current[segment] = typeof segments[i + 1] === 'number' ? [] : {};
    current = current[segment] as Members;
  });
  const last = segments[segments.length - 1];
  if (value === null) delete current[last];
  else current[last] = structuredClone(value);
}

/** Sets (or, for null, removes) the members at the dotted paths of `changes`. */
export function changeMembers(object: object, changes: MemberChanges): void {
  for (const [path, value] of Object.entries(changes)) setAt(object as unknown as Members, path, value);
}

export function recordedUpdateCauses(
  type: ResourceType,
  object: KubeObject,
  changes: {
    readonly storedAs?: MemberChanges;
    readonly changed: MemberChanges;
    /** The status subresource takes the update (the main resource where absent). */
    readonly target?: 'main' | 'status';
  },
  gates: Readonly<Record<string, boolean>> = {},
): string[] {
  const stored = created(type, object, gates);
  if (stored.errors.length > 0) throw new Error(`the create was refused: ${stored.errors.join('; ')}`);
  changeMembers(stored.object, changes.storedAs ?? {});
  const update = updated(type, stored.object, (next) => changeMembers(next, changes.changed), gates, changes.target);
  return update.errors.map((error) => error.split('\n')[0]);
}
