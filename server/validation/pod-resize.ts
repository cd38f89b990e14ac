/**
 * The rules of a pod's resize (pods/resize), after the reference's ValidatePodResize. A pod the
 * kubelet cannot resize in place is refused with that reason alone (podResizeRefusal), in place
 * of every other error of these rules. Any other is held to its own annotations and spec; then
 * the QoS class may not change, a running pod's node must report its containers' resources, and
 * no container may be added, removed, renamed or reordered (the rest compares containers by
 * index, so it stops there); then no request or limit may be removed (sidecars first, then
 * containers), and only cpu and memory may change: a sidecar's, a container's, and no plain init
 * container's resources at all. A resize policy counts as one of the other fields, so it may not
 * change either.
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, invalid } from '../status/field-errors';
import { podQOSClass } from '../registry/defaults/pod';
import { isMirrorPod } from '../registry/kinds/mirror-pod';
import type { WriteContext } from '../registry/types';
import { validatePodAnnotationsAndSpec } from './core';
import { semanticEqual } from './semantic-equality';

type Json = Record<string, unknown>;
type ResourceList = Record<string, unknown>;
interface Resources {
  readonly requests?: ResourceList | null;
  readonly limits?: ResourceList | null;
}
type Container = Json & { readonly name?: string; readonly resources?: Resources | null };

/** The resources the kubelet resizes in place; any other amount stays as created. */
const RESIZABLE_RESOURCES = ['cpu', 'memory'] as const;

function specOf(pod: KubeObject): Json {
  return (pod.spec as Json | undefined) ?? {};
}

function listOf(pod: KubeObject, list: 'containers' | 'initContainers'): Container[] {
  return (specOf(pod)[list] as Container[] | null | undefined) ?? [];
}

/** A sidecar: an init container that keeps running beside the pod's containers. */
function isSidecar(container: Container): boolean {
  return container.restartPolicy === 'Always';
}

function hasPodLevelResources(pod: KubeObject): boolean {
  const resources = specOf(pod).resources as Resources | null | undefined;
  return Object.keys(resources?.requests ?? {}).length + Object.keys(resources?.limits ?? {}).length > 0;
}

/** Why the kubelet cannot resize the pod in place at all, in the reference's order, if it cannot. */
function unresizableReason(pod: KubeObject, old: KubeObject): string | undefined {
  if (hasPodLevelResources(old) || hasPodLevelResources(pod)) return 'pods with pod-level resources cannot be resized';
  if (isMirrorPod(old)) return 'static pods cannot be resized';
  if ((specOf(old).os as { name?: string } | null | undefined)?.name === 'windows')
    return 'windows pods cannot be resized';
  return undefined;
}

/** The one error of a resize of a pod the kubelet cannot resize in place, if it cannot. */
export function podResizeRefusal(pod: KubeObject, old: KubeObject): FieldError | undefined {
  const reason = unresizableReason(pod, old);
  return reason === undefined ? undefined : forbidden(FieldPath.wholeObject(), reason);
}

/**
 * Whether the pod's node can resize it: a node that runs a container but reports no resources
 * for it predates in-place resizing. Before any container runs, nothing tells, and it may.
 */
function nodeSupportsResize(pod: KubeObject): boolean {
  const statuses = ((pod.status as Json | undefined)?.containerStatuses as Json[] | null | undefined) ?? [];
  const running = statuses.find((status) => (status.state as Json | null | undefined)?.running != null);
  return running === undefined || running.resources != null;
}

function containerOrderErrors(pod: KubeObject, old: KubeObject, specPath: FieldPath): FieldError[] {
  return (['containers', 'initContainers'] as const).flatMap((list) => {
    const [next, before] = [listOf(pod, list), listOf(old, list)];
    const path = specPath.child(list);
    if (next.length !== before.length) return [forbidden(path, `${list} may not be added or removed on resize`)];
    return before.flatMap((container, i) =>
      (next[i].name ?? '') === (container.name ?? '')
        ? []
        : [forbidden(path.index(i).child('name'), `${list} may not be renamed or reordered on resize`)],
    );
  });
}

function removesResources(next: ResourceList | null | undefined, old: ResourceList | null | undefined): boolean {
  return Object.keys(old ?? {}).some((name) => !Object.hasOwn(next ?? {}, name));
}

function removedResourceErrors(next: Container, old: Container, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (removesResources(next.resources?.requests, old.resources?.requests))
    errors.push(forbidden(path.child('requests'), 'resource requests cannot be removed'));
  if (removesResources(next.resources?.limits, old.resources?.limits))
    errors.push(forbidden(path.child('limits'), 'resource limits cannot be removed'));
  return errors;
}

/**
 * The new list with its cpu and memory as they were: a list the container had none of stays
 * absent, whatever the resize added to it.
 */
function withOldCpuAndMemory(next: ResourceList | null | undefined, old: ResourceList | null | undefined) {
  if (old === undefined || old === null) return undefined;
  const kept: ResourceList = { ...(next ?? {}) };
  for (const name of RESIZABLE_RESOURCES) {
    if (Object.hasOwn(old, name)) kept[name] = old[name];
    else delete kept[name];
  }
  return kept;
}

/**
 * Whether the container changed in anything but its cpu and memory amounts. Its resources keep
 * only their requests and limits for the comparison, so a container with claims never passes,
 * as in the reference.
 */
function changesMoreThanCpuAndMemory(next: Container, old: Container): boolean {
  const resources = {
    limits: withOldCpuAndMemory(next.resources?.limits, old.resources?.limits),
    requests: withOldCpuAndMemory(next.resources?.requests, old.resources?.requests),
  };
  return !semanticEqual('core.Container', { ...next, resources }, old);
}

/** `old` is the stored pod, one podResizeRefusal lets through; `pod` the one the resize would store. */
export function validatePodResize(pod: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  const errors = validatePodAnnotationsAndSpec(pod, old, context);
  const specPath = FieldPath.root('spec');
  const storedClass = ((old.status as Json | undefined)?.qosClass as string | undefined) || undefined;
  const qosBefore = storedClass ?? podQOSClass(specOf(old), context.featureEnabled);
  if (podQOSClass(specOf(pod), context.featureEnabled) !== qosBefore) {
    const shown = ((pod.status as Json | undefined)?.qosClass as string | undefined) ?? '';
    errors.push(invalid(specPath, shown, 'Pod QOS Class may not change as a result of resizing'));
  }
  if (!nodeSupportsResize(old)) errors.push(forbidden(specPath, 'Pod running on node without support for resize'));
  const orderErrors = containerOrderErrors(pod, old, specPath);
  if (orderErrors.length > 0) return [...errors, ...orderErrors];

  const [containers, oldContainers] = [listOf(pod, 'containers'), listOf(old, 'containers')];
  const [initContainers, oldInitContainers] = [listOf(pod, 'initContainers'), listOf(old, 'initContainers')];
  oldInitContainers.forEach((container, i) => {
    if (isSidecar(container))
      errors.push(
        ...removedResourceErrors(
          initContainers[i],
          container,
          specPath.child('initContainers').index(i).child('resources'),
        ),
      );
  });
  oldContainers.forEach((container, i) =>
    errors.push(
      ...removedResourceErrors(containers[i], container, specPath.child('containers').index(i).child('resources')),
    ),
  );
  for (const [i, container] of containers.entries())
    if (changesMoreThanCpuAndMemory(container, oldContainers[i]))
      errors.push(forbidden(specPath, 'only cpu and memory resources are mutable'));
  for (const [i, container] of initContainers.entries()) {
    if (isSidecar(container)) {
      if (changesMoreThanCpuAndMemory(container, oldInitContainers[i]))
        errors.push(forbidden(specPath, 'only cpu and memory resources for sidecar containers are mutable'));
    } else if (!semanticEqual('core.Container', container, oldInitContainers[i]))
      errors.push(forbidden(specPath, 'resources for non-sidecar init containers are immutable'));
  }
  return errors;
}
