/**
 * Keeps each FlowSchema's `Dangling` condition, as the reference's configuration consumer
 * does: `False`/`Found` while the priority level it names exists, `True`/`NotFound` while it
 * does not, with the reference's messages; the transition time moves only when the status does.
 * Runs on the leader.
 */
import type { KubeObject } from '../../api/objects';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { FLOWCONTROL_GROUP } from '../../api/flowcontrol-bootstrap';

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

function conditionsOf(schema: KubeObject): Condition[] {
  const conditions = (schema.status as { conditions?: Condition[] } | undefined)?.conditions;
  return Array.isArray(conditions) ? conditions : [];
}

export function wantedDangling(schema: KubeObject, levelExists: boolean): Omit<Condition, 'lastTransitionTime'> {
  const level = String(
    (schema.spec as { priorityLevelConfiguration?: { name?: string } } | undefined)?.priorityLevelConfiguration?.name ??
      '',
  );
  return levelExists
    ? {
        type: 'Dangling',
        status: 'False',
        reason: 'Found',
        message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} and it exists`,
      }
    : {
        type: 'Dangling',
        status: 'True',
        reason: 'NotFound',
        message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} but there is no such object`,
      };
}

export function startDanglingConditions(
  operations: ObjectOperations,
  lost: AbortSignal,
  now: () => Date = () => new Date(),
): void {
  const find = (resource: string) => {
    const type = operations.registry.find({ group: FLOWCONTROL_GROUP, version: 'v1' }, resource);
    if (!type) throw new Error(`${FLOWCONTROL_GROUP}/v1 ${resource} are not served`);
    return type;
  };
  const schemaType = find('flowschemas');
  const levelNames = () => new Set([...levels.objects.values()].map((level) => String(level.metadata.name)));
  // Until both kinds are listed, a level not seen yet is not a missing one.
  let synced = false;
  const check = (schema: KubeObject, names: ReadonlySet<string>) => {
    if (lost.aborted || !synced) return;
    const wanted = wantedDangling(
      schema,
      names.has(
        String((schema.spec as { priorityLevelConfiguration?: { name?: string } }).priorityLevelConfiguration?.name),
      ),
    );
    const current = conditionsOf(schema).find((condition) => condition.type === 'Dangling');
    if (
      current &&
      current.status === wanted.status &&
      current.reason === wanted.reason &&
      current.message === wanted.message
    )
      return;
    operations
      .updateObject(
        schemaType,
        { name: String(schema.metadata.name) },
        (object) => {
          const conditions = conditionsOf(object).filter((condition) => condition.type !== 'Dangling');
          const previous = conditionsOf(object).find((condition) => condition.type === 'Dangling');
          const lastTransitionTime =
            previous?.status === wanted.status && previous.lastTransitionTime
              ? previous.lastTransitionTime
              : now()
                  .toISOString()
                  .replace(/\.\d+Z$/, 'Z');
          object.status = {
            ...(object.status as object | undefined),
            conditions: [...conditions, { ...wanted, lastTransitionTime }],
          };
        },
        'status',
      )
      .catch((error: unknown) => console.error(`flowschema ${schema.metadata.name}: status not written:`, error));
  };
  const checkAll = () => {
    const names = levelNames();
    for (const schema of schemas.objects.values()) check(schema, names);
  };
  const schemas = startInformer(operations.storageFor(schemaType), {
    onUpsert: (schema) => check(schema, levelNames()),
  });
  const levels = startInformer(operations.storageFor(find('prioritylevelconfigurations')), {
    onUpsert: checkAll,
    onDelete: checkAll,
  });
  void Promise.all([schemas.synced, levels.synced]).then(() => {
    synced = true;
    checkAll();
  });
  lost.addEventListener('abort', () => {
    schemas.stop();
    levels.stop();
  });
}
