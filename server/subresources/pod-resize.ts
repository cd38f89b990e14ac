/**
 * `pods/resize`: in-place changes of the containers' resources. A write through it changes
 * spec.containers[*].resources and resizePolicy and nothing else (matched by container name),
 * bumps metadata.generation when they change, and may not change the pod's QoS class, with the
 * reference's message; the pod's own rules judge the resulting pod. Pods the kubelet does not
 * resize in place (with pod-level resources, static, Windows) are refused whole.
 */
import type { KubeObject } from '../../api/objects';
import { copyJson } from '../json/value';
import { podQOSClass } from '../registry/defaults/pod';
import type { FeatureEnabled, FieldError } from '../registry/types';
import { partialWriteHandlers } from './partial-write';
import { deepEqual, FieldPath, forbidden, invalid } from '../status/field-errors';
import { MIRROR_POD_ANNOTATION } from '../registry/kinds/mirror-pod';

type Container = Record<string, unknown> & { readonly name?: string };
const RESIZABLE = ['resources', 'resizePolicy'] as const;

function specOf(pod: KubeObject): Record<string, unknown> {
  return (pod.spec as Record<string, unknown> | undefined) ?? {};
}

function containersOf(pod: KubeObject): Container[] {
  return (specOf(pod).containers as Container[] | undefined) ?? [];
}

/** The stored pod with the resizable fields of each of its containers as the write sends them. */
function keepAllButResources(object: KubeObject, old: KubeObject): void {
  const sent = new Map(containersOf(object).map((container) => [container.name, container]));
  for (const key of Object.keys(object)) if (key !== 'apiVersion' && key !== 'kind') delete object[key];
  Object.assign(object, copyJson(old));
  const containers = containersOf(object).map((container) => {
    const resized = sent.get(container.name);
    if (resized === undefined) return container;
    const next: Container = { ...container };
    for (const field of RESIZABLE) {
      if (resized[field] === undefined) delete next[field];
      else next[field] = resized[field];
    }
    return next;
  });
  object.spec = { ...specOf(object), containers };
  if (!deepEqual(containers, containersOf(old))) object.metadata.generation = (old.metadata.generation ?? 0) + 1;
}

function hasPodLevelResources(pod: KubeObject): boolean {
  const resources = specOf(pod).resources as { requests?: object; limits?: object } | null | undefined;
  return Object.keys(resources?.requests ?? {}).length + Object.keys(resources?.limits ?? {}).length > 0;
}

/** Why the pod cannot be resized at all, in the reference's order, if it cannot. */
function unresizableReason(object: KubeObject, old: KubeObject): string | undefined {
  if (hasPodLevelResources(old) || hasPodLevelResources(object))
    return 'pods with pod-level resources cannot be resized';
  if (old.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return 'static pods cannot be resized';
  if ((specOf(old).os as { name?: string } | null | undefined)?.name === 'windows')
    return 'windows pods cannot be resized';
  return undefined;
}

/** A pod that cannot be resized is told only that, as the reference's ValidatePodResize returns there. */
export function validateResize(object: KubeObject, old: KubeObject, featureEnabled: FeatureEnabled): FieldError[] {
  const unresizable = unresizableReason(object, old);
  if (unresizable !== undefined) return [forbidden(FieldPath.wholeObject(), unresizable)];
  const before = podQOSClass(specOf(old), featureEnabled);
  if (podQOSClass(specOf(object), featureEnabled) !== before)
    return [invalid(FieldPath.root('spec'), before, 'Pod QOS Class may not change as a result of resizing')];
  return [];
}

export const resizeHandlers = partialWriteHandlers((base) => ({
  prepareForStatusUpdate: keepAllButResources,
  validateStatusUpdate: (object, old, context) => {
    const own = validateResize(object, old, context.featureEnabled);
    if (own.length > 0) return own;
    // The pod's own rules, which forbid most spec changes, judge the pod with its new resources.
    const oldResized: KubeObject = { ...old, spec: { ...specOf(old), containers: containersOf(object) } };
    return base.validateUpdate?.(object, oldResized, context) ?? [];
  },
}));
