/**
 * Keeps the bootstrap priority levels and flow schemas at every start, as the reference's
 * `priority-and-fairness-config-producer` hook does:
 * - a missing mandatory or suggested object is created;
 * - a mandatory object always gets its fixed spec back (the `exempt` level keeps its own
 *   `spec.exempt`, which administrators may tune);
 * - a suggested object without the autoupdate annotation gets one: `true` when no one has
 *   changed its spec since creation (generation 1), `false` otherwise; with `true`, its spec
 *   follows the server's;
 * - an object the server does not know but annotated `true` is deleted.
 * Every replica runs it; creating what exists is not an error and updates retry on conflicts.
 */
import type { KubeObject } from '../../api/objects';
import { EVERYTHING } from '../../storage/objects/types';
import type { ObjectOperations } from '../client/operations';
import type { ResourceType } from '../registry/types';
import { deepEqual } from '../status/field-errors';
import {
  AUTO_UPDATE_ANNOTATION,
  FLOWCONTROL_GROUP,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../../api/flowcontrol-bootstrap';

export async function ensureBootstrapConfiguration(operations: ObjectOperations): Promise<void> {
  const type = (resource: string): ResourceType => {
    const found = operations.registry.find({ group: FLOWCONTROL_GROUP, version: 'v1' }, resource);
    if (!found) throw new Error(`${FLOWCONTROL_GROUP}/v1 ${resource} are not served`);
    return found;
  };
  // Levels first, so the schemas never dangle on a fresh cluster.
  await ensureObjects(
    operations,
    type('prioritylevelconfigurations'),
    MANDATORY_PRIORITY_LEVELS,
    SUGGESTED_PRIORITY_LEVELS,
  );
  await ensureObjects(operations, type('flowschemas'), MANDATORY_FLOW_SCHEMAS, SUGGESTED_FLOW_SCHEMAS);
}

/** The part of the spec the server keeps; the `exempt` level's own tuning is the administrator's. */
function managedSpec(object: KubeObject): unknown {
  const spec = object.spec as Record<string, unknown> | undefined;
  return object.kind === 'PriorityLevelConfiguration' && object.metadata.name === 'exempt'
    ? { ...spec, exempt: undefined }
    : spec;
}

async function ensureObjects(
  operations: ObjectOperations,
  type: ResourceType,
  mandatory: readonly KubeObject[],
  suggested: readonly KubeObject[],
): Promise<void> {
  const { items } = await operations.storageFor(type).list({}, { predicate: EVERYTHING });
  const existing = new Map(items.map((object) => [String(object.metadata.name), object]));
  const known = new Set([...mandatory, ...suggested].map((object) => String(object.metadata.name)));
  // Each object on its own, side by side: a start waits one store round trip, not one a object.
  const ensureOne = async (wanted: KubeObject) => {
    const name = String(wanted.metadata.name);
    const found = existing.get(name);
    if (found === undefined) {
      await operations.createObject(type, structuredClone(wanted));
      return;
    }
    const isMandatory = mandatory.includes(wanted);
    const annotation = found.metadata.annotations?.[AUTO_UPDATE_ANNOTATION];
    const autoUpdate =
      annotation === undefined ? isMandatory || found.metadata.generation === 1 : annotation === 'true';
    const specFollows = isMandatory || autoUpdate;
    if (annotation !== undefined && (!specFollows || deepEqual(managedSpec(found), managedSpec(wanted)))) return;
    await operations.updateObject(type, { name }, (object) => {
      object.metadata.annotations = { ...object.metadata.annotations, [AUTO_UPDATE_ANNOTATION]: String(autoUpdate) };
      if (specFollows && !deepEqual(managedSpec(object), managedSpec(wanted))) {
        const keptExempt = (object.spec as Record<string, unknown> | undefined)?.exempt;
        object.spec = structuredClone(wanted.spec);
        if (managedSpec(wanted) !== wanted.spec && keptExempt !== undefined)
          (object.spec as Record<string, unknown>).exempt = keptExempt;
      }
    });
  };
  await Promise.all([...mandatory, ...suggested].map(ensureOne));
  for (const [name, object] of existing) {
    if (!known.has(name) && object.metadata.annotations?.[AUTO_UPDATE_ANNOTATION] === 'true') {
      await operations.deleteObject(type, { name }, { uid: object.metadata.uid });
    }
  }
}
