/**
 * A container's resize policies, as the reference's validateResizePolicy checks them: one policy
 * per resource, only for the resources the kubelet resizes in place (cpu, memory), each saying
 * whether the container restarts for it; a pod that never restarts its containers can only
 * resize without a restart.
 */
import type { FieldError } from '../status/field-error';
import { duplicate, GoValue, invalid, notSupported, required, type FieldPath } from '../status/field-errors';
import { internalCompactJson } from './internal-json';

export interface ContainerResizePolicy {
  readonly resourceName?: string;
  readonly restartPolicy?: string;
}

const RESIZABLE_RESOURCES = ['cpu', 'memory'];
const RESIZE_RESTART_POLICIES = ['NotRequired', 'RestartContainer'];

/** `podRestartPolicy`: the pod's spec.restartPolicy. */
export function validateResizePolicy(
  policies: readonly ContainerResizePolicy[],
  path: FieldPath,
  podRestartPolicy: string | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  policies.forEach((policy, i) => {
    const resource = policy.resourceName ?? '';
    const restart = policy.restartPolicy ?? '';
    if (seen.has(resource)) errors.push(duplicate(path.index(i), resource));
    seen.add(resource);
    if (resource === '') errors.push(required(path));
    else if (!RESIZABLE_RESOURCES.includes(resource)) errors.push(notSupported(path, resource, RESIZABLE_RESOURCES));
    if (restart === '') errors.push(required(path));
    else if (!RESIZE_RESTART_POLICIES.includes(restart))
      errors.push(notSupported(path, restart, RESIZE_RESTART_POLICIES));
    if (podRestartPolicy === 'Never' && restart !== 'NotRequired')
      errors.push(invalid(path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
  });
  return errors;
}

/** Whether a sidecar of the spec has a resize policy, which lets init containers keep theirs with the gate off. */
export function sidecarHasResizePolicy(spec: { readonly initContainers?: readonly unknown[] } | undefined): boolean {
  return (spec?.initContainers ?? []).some((container) => {
    const { restartPolicy, resizePolicy } = container as { restartPolicy?: string; resizePolicy?: unknown[] };
    return restartPolicy === 'Always' && (resizePolicy?.length ?? 0) > 0;
  });
}

/**
 * An init container may state resize policies only while InPlacePodVerticalScaling is on or a
 * sidecar of the stored spec has one (`allowed`): with the gate off, a spec that already used
 * them keeps them, and so reaches this rule. The value is printed as Go's internal struct.
 */
export function initContainerResizePolicyErrors(
  policies: readonly ContainerResizePolicy[] | undefined,
  path: FieldPath,
  allowed: boolean,
): FieldError[] {
  if (allowed || (policies?.length ?? 0) === 0) return [];
  const shown = new GoValue(internalCompactJson('[]core.ContainerResizePolicy', policies));
  return [invalid(path, shown, 'must not be set for init containers')];
}
