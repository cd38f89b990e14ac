/**
 * The 409 an apply answers when it would change fields other managers own: one cause per
 * field and manager, and the reference's message, which names each manager and field.
 */
import { StatusError } from '../status/status-error';
import { comparePaths, formatPath, type FieldPath } from '../fieldmanager/path-set';
import { printManager } from '../fieldmanager/managers';

export interface FieldConflict {
  /** The manager's identity (see managerIdentity). */
  readonly manager: string;
  readonly path: FieldPath;
}

export function sortConflicts(conflicts: readonly FieldConflict[]): FieldConflict[] {
  return [...conflicts].sort((a, b) =>
    a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : comparePaths(a.path, b.path),
  );
}

function conflictMessage(conflicts: readonly FieldConflict[]): string {
  if (conflicts.length === 1) {
    return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].manager)}: ${formatPath(conflicts[0].path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const conflict of conflicts) {
    const paths = byManager.get(conflict.manager) ?? [];
    paths.push(formatPath(conflict.path));
    byManager.set(conflict.manager, paths);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const path of byManager.get(manager)!) lines.push(`- ${path}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** `conflicts` in the order they are to be reported (see sortConflicts). */
export function applyConflict(conflicts: readonly FieldConflict[]): StatusError {
  return new StatusError({
    code: 409,
    reason: 'Conflict',
    message: conflictMessage(conflicts),
    details: {
      causes: conflicts.map((conflict) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with ${printManager(conflict.manager)}`,
        field: formatPath(conflict.path),
      })),
    },
  });
}
