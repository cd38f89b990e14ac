/**
 * A Job's pod template is fixed once the Job exists, except where its pods will run while none
 * has run yet: a suspended Job that never started (a queueing controller holds it) may still
 * have its template's node affinity, node selector, tolerations, scheduling gates, labels and
 * annotations changed, as the reference's validatePodTemplateUpdate allows.
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { GoValue, type FieldPath } from '../status/field-errors';
import type { PodTemplateShape } from './pod';
import { immutableAs } from './semantic-equality';
import { internalCompactJson } from './internal-json';

interface Affinity {
  nodeAffinity?: unknown;
  [member: string]: unknown;
}

/** Sets a member to `from`'s, or removes it where `from` has none. */
function copyMember(to: Record<string, unknown>, from: Record<string, unknown> | undefined, name: string): void {
  if (from?.[name] == null) delete to[name];
  else to[name] = from[name];
}

/** No member set: Go's empty Affinity struct. */
function isEmptyAffinity(affinity: Affinity): boolean {
  return Object.values(affinity).every((value) => value == null);
}

/** The stored template with the members that may still change taken from the new one. */
function comparableOldTemplate(template: PodTemplateShape, oldTemplate: PodTemplateShape): PodTemplateShape {
  const compared = structuredClone(oldTemplate);
  const spec = (compared.spec ??= {});
  const newSpec = template.spec ?? {};
  const affinity = newSpec.affinity as Affinity | null | undefined;
  const oldAffinity = spec.affinity as Affinity | null | undefined;
  if (affinity == null && oldAffinity != null) {
    // Affinity may be dropped as a whole when node affinity was all it held.
    delete oldAffinity.nodeAffinity;
    if (isEmptyAffinity(oldAffinity)) delete spec.affinity;
  } else if (affinity != null && oldAffinity == null) {
    spec.affinity = affinity.nodeAffinity == null ? {} : { nodeAffinity: affinity.nodeAffinity };
  } else if (affinity != null && oldAffinity != null) {
    copyMember(oldAffinity, affinity, 'nodeAffinity');
  }
  for (const name of ['nodeSelector', 'tolerations', 'schedulingGates']) copyMember(spec, newSpec, name);
  if (template.metadata !== undefined) {
    const metadata = (compared.metadata ??= {}) as Record<string, unknown>;
    for (const name of ['annotations', 'labels']) copyMember(metadata, template.metadata, name);
  } else if (compared.metadata !== undefined) {
    delete compared.metadata.annotations;
    delete compared.metadata.labels;
  }
  return compared;
}

export function jobTemplateUpdateErrors(
  template: PodTemplateShape | undefined,
  old: KubeObject,
  path: FieldPath,
): FieldError[] {
  const oldTemplate = (old.spec as { template?: PodTemplateShape } | undefined)?.template;
  const suspended = (old.spec as { suspend?: boolean } | undefined)?.suspend === true;
  const started = (old.status as { startTime?: string | null } | undefined)?.startTime != null;
  const compared =
    suspended && !started && template !== undefined && oldTemplate !== undefined
      ? comparableOldTemplate(template, oldTemplate)
      : oldTemplate;
  // Printed as the reference's field error prints it: the internal Go struct, marshalled.
  const shown = template === undefined ? null : new GoValue(internalCompactJson('core.PodTemplateSpec', template));
  return immutableAs('core.PodTemplateSpec', path, template, compared, shown);
}
