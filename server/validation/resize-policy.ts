/**
 * A container's resize policies, as the reference's validateResizePolicy checks them: one policy
 * per resource, only for the resources the kubelet resizes in place (cpu, memory), each saying
 * whether the container restarts for it; a pod that never restarts its containers can only
 * resize without a restart.
 */
import type { FieldError } from '../status/field-error';
import { duplicate, invalid, notSupported, required, type FieldPath } from '../status/field-errors';

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
