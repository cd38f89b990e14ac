/**
 * A DaemonSet's template generation: the reference keeps it in its internal version's
 * `spec.templateGeneration`, which apps/v1 has no field for, so its conversion carries it in the
 * annotation `deprecated.daemonset.template.generation`: read from it (and removed) on the way
 * in, written back on every way out, `"0"` when the stored object has none. Its registry sets
 * it to 1 on create and counts one up on each update that changes the pod template; a client
 * cannot set it on update. Older controllers and tools still read it.
 */
import type { KubeObject } from '../../../api/objects';
import { deepEqual } from '../../status/field-errors';

const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** The generation the annotation holds; 0 when absent or not a whole number. */
export function templateGenerationOf(daemonSet: KubeObject): number {
  const value = Number(daemonSet.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION]);
  return Number.isSafeInteger(value) ? value : 0;
}

function setTemplateGeneration(daemonSet: KubeObject, generation: number): void {
  daemonSet.metadata.annotations = {
    ...daemonSet.metadata.annotations,
    [TEMPLATE_GENERATION_ANNOTATION]: String(generation),
  };
}

/** As the reference's conversion writes it out: always there, `"0"` when it was not. */
export function fillTemplateGeneration(daemonSet: KubeObject): void {
  if (daemonSet.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] === undefined)
    setTemplateGeneration(daemonSet, 0);
}

/** A new DaemonSet starts at generation 1 unless it asks for a later one. */
export function startTemplateGeneration(daemonSet: KubeObject): void {
  setTemplateGeneration(daemonSet, Math.max(templateGenerationOf(daemonSet), 1));
}

/** An update keeps the stored generation, one up when the pod template changes. */
export function advanceTemplateGeneration(daemonSet: KubeObject, old: KubeObject): void {
  const templateChanged = !deepEqual(
    (daemonSet.spec as { template?: unknown } | undefined)?.template,
    (old.spec as { template?: unknown } | undefined)?.template,
  );
  setTemplateGeneration(daemonSet, templateGenerationOf(old) + (templateChanged ? 1 : 0));
}
