/**
 * The controller manager's storage version migrator (`storage-version-migrator-controller`,
 * behind the StorageVersionMigrator gate): a StorageVersionMigration names a resource, and every
 * stored object of it is written again, so that what the store holds is in the current storage
 * version and encrypted as configured now (the way to encrypt the Secrets written before
 * encryption at rest was turned on).
 *
 * As the reference's two controllers do it: first the migration's `status.resourceVersion` is
 * set to the resource's list revision (or it fails, "resource does not exist in discovery"),
 * then it is marked Running, each object is rewritten through the generic store (a write whose
 * bytes would not change is skipped there, so an object already migrated is left alone), and it
 * ends Succeeded, or Failed at the first object that cannot be written.
 */
import type { KubeObject } from '../../api/objects';
import { unlessNotFound } from '../../storage/errors';
import { EVERYTHING } from '../../storage/objects/types';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';
import type { ResourceType } from '../registry/types';
import { metaTime } from '../../api/objects';

const SUCCEEDED = 'Succeeded';
const FAILED = 'Failed';
const RUNNING = 'Running';

interface MigrationCondition {
  type: string;
  status: string;
  lastUpdateTime?: string;
  reason?: string;
  message?: string;
}

interface MigrationStatus {
  conditions?: MigrationCondition[];
  resourceVersion?: string;
}

function statusOf(migration: KubeObject): MigrationStatus {
  return (migration.status as MigrationStatus | undefined) ?? {};
}

function conditionTrue(migration: KubeObject, type: string): boolean {
  return (statusOf(migration).conditions ?? []).some(
    (condition) => condition.type === type && condition.status === 'True',
  );
}

/** The reference's setStatusConditions: a condition once true stays; Succeeded or Failed ends Running. */
function withCondition(migration: KubeObject, type: string, reason: string, message: string): void {
  if (conditionTrue(migration, type)) return;
  const status = statusOf(migration);
  const conditions = [...(status.conditions ?? [])];
  if (type === SUCCEEDED || type === FAILED) {
    const running = conditions.findIndex((condition) => condition.type === RUNNING && condition.status === 'True');
    if (running >= 0) conditions[running] = { ...conditions[running], status: 'False' };
  }
  conditions.push({ type, status: 'True', lastUpdateTime: metaTime(new Date()), reason, message });
  migration.status = { ...status, conditions };
}

export function startStorageVersionMigrator(operations: ObjectOperations, stop: AbortSignal): void {
  const migrations = operations.registry.find(
    { group: 'storagemigration.k8s.io', version: 'v1alpha1' },
    'storageversionmigrations',
  );
  if (migrations === undefined) return;
  const setStatus = (name: string, change: (migration: KubeObject) => void) =>
    operations.updateObject(migrations, { name }, change, 'status');

  const migrate = async (name: string): Promise<void> => {
    // Read where it is written, not from the informer: the key comes back for this handler's
    // own status writes, and the informer may not have seen the last of them yet.
    const migration = await unlessNotFound(operations.storageFor(migrations).get({ name }));
    if (migration === undefined || conditionTrue(migration, SUCCEEDED) || conditionTrue(migration, FAILED)) return;
    const target = (migration.spec as { resource?: { group?: string; version?: string; resource?: string } })?.resource;
    const type =
      target === undefined
        ? undefined
        : operations.registry.find({ group: target.group ?? '', version: target.version ?? '' }, target.resource ?? '');
    const recorded = statusOf(migration).resourceVersion;
    if (recorded === undefined || recorded === '') {
      if (type === undefined) {
        await setStatus(name, (current) =>
          withCondition(current, FAILED, 'StorageVersionMigrationFailed', 'resource does not exist in discovery'),
        );
        return;
      }
      const listed = await operations.storageFor(type).list({}, { predicate: EVERYTHING, limit: 1 });
      await setStatus(name, (current) => {
        current.status = { ...statusOf(current), resourceVersion: listed.resourceVersion };
      });
      return;
    }
    if (type === undefined) {
      await setStatus(name, (current) =>
        withCondition(current, FAILED, 'StorageVersionMigrationFailed', 'resource not found'),
      );
      return;
    }
    await setStatus(name, (current) => withCondition(current, RUNNING, 'StorageVersionMigrationInProgress', ''));
    const failed = await rewriteAll(operations, type);
    await setStatus(name, (current) =>
      failed
        ? withCondition(current, FAILED, 'StorageVersionMigrationFailed', 'migration encountered unhandled error')
        : withCondition(current, SUCCEEDED, 'StorageVersionMigrationSucceeded', ''),
    );
  };

  const queue = startWorkQueue<string>({ stop, handle: migrate });
  const informer = startInformer(operations.storageFor(migrations), {
    onUpsert: (migration) => queue.add(String(migration.metadata.name)),
  });
  stop.addEventListener('abort', () => informer.stop(), { once: true });
}

/** Writes every stored object of `type` again; true when one could not be written. */
async function rewriteAll(operations: ObjectOperations, type: ResourceType): Promise<boolean> {
  const { items } = await operations.storageFor(type).list({}, { predicate: EVERYTHING });
  for (const object of items) {
    const key = { namespace: object.metadata.namespace, name: String(object.metadata.name) };
    try {
      await operations.updateObject(type, key, () => undefined);
    } catch {
      return true;
    }
  }
  return false;
}
