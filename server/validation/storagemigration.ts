/** storagemigration.k8s.io/v1alpha1 rules: StorageVersionMigrations, as the reference validates them. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, FIELD_IMMUTABLE, invalid, required } from '../status/field-errors';

interface MigratedResource {
  group?: string;
  version?: string;
  resource?: string;
}

function resourceOf(migration: KubeObject): MigratedResource {
  return ((migration.spec as { resource?: MigratedResource } | undefined)?.resource ?? {}) as MigratedResource;
}

export function validateStorageVersionMigration(migration: KubeObject): FieldError[] {
  const resource = resourceOf(migration);
  const path = FieldPath.root('spec', 'resource');
  const errors: FieldError[] = [];
  if (!resource.resource) errors.push(required(path.child('resource'), 'resource is required'));
  if (!resource.version) errors.push(required(path.child('version'), 'version is required'));
  return errors;
}

/** The migrated resource never changes; the reference reports it at top-level paths (`group`, not `spec.resource.group`). */
export function validateStorageVersionMigrationUpdate(migration: KubeObject, old: KubeObject): FieldError[] {
  const [next, before] = [resourceOf(migration), resourceOf(old)];
  const changed = (['group', 'version', 'resource'] as const).filter(
    (part) => (next[part] ?? '') !== (before[part] ?? ''),
  );
  return [
    ...validateStorageVersionMigration(migration),
    ...changed.map((part) => invalid(FieldPath.root(part), next[part] ?? '', FIELD_IMMUTABLE)),
  ];
}
