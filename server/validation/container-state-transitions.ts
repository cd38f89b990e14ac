/**
 * A status write may not bring a container the stored status reports terminated back to a
 * non-terminated state unless the pod's restart policy would have restarted it: the kubelet never
 * does so, so such a write would tell of a restart that did not happen.
 */
import type { FieldError } from '../status/field-error';
import { forbidden, type FieldPath } from '../status/field-errors';

interface ContainerStatus {
  name?: string;
  state?: { terminated?: { exitCode?: number } | null } | null;
}

interface ContainerShape {
  name?: string;
  restartPolicy?: string;
  restartPolicyRules?: { action?: string; exitCodes?: { operator?: string; values?: number[] } }[];
}

interface SpecShape {
  restartPolicy?: string;
  containers?: ContainerShape[];
  initContainers?: ContainerShape[];
}

const NOT_BACK = 'may not be transitioned to non-terminated state';

/**
 * Each stored terminated status (its path indexed in the stored list, as the reference has it)
 * that `mayRestart` does not excuse, once for every new status of its name no longer terminated.
 */
function transitionErrors(
  next: readonly ContainerStatus[] | undefined,
  old: readonly ContainerStatus[] | undefined,
  path: FieldPath,
  mayRestart: (status: ContainerStatus, exitCode: number) => boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  (old ?? []).forEach((before, i) => {
    const terminated = before.state?.terminated;
    if (terminated === undefined || terminated === null || mayRestart(before, terminated.exitCode ?? 0)) return;
    for (const after of next ?? [])
      if (after.name === before.name && (after.state?.terminated ?? null) === null)
        errors.push(forbidden(path.index(i).child('state'), NOT_BACK));
  });
  return errors;
}

const onFailureExcuses = (spec: SpecShape, exitCode: number) =>
  spec.restartPolicy === 'Always' || (exitCode !== 0 && spec.restartPolicy === 'OnFailure');

export function containerStateTransitionErrors(
  next: readonly ContainerStatus[] | undefined,
  old: readonly ContainerStatus[] | undefined,
  path: FieldPath,
  spec: SpecShape,
  options: { readonly containerRestartRules: boolean },
): FieldError[] {
  if (options.containerRestartRules) return perContainerTransitionErrors(next, old, path, spec);
  return transitionErrors(next, old, path, (_status, exitCode) => onFailureExcuses(spec, exitCode));
}

/**
 * With ContainerRestartRules, each container's own policy and exit-code rules decide (the
 * kubelet's ContainerShouldRestart); a status of a container the spec lacks may not leave the
 * terminated state, and each stored status is reported once at most.
 */
function perContainerTransitionErrors(
  next: readonly ContainerStatus[] | undefined,
  old: readonly ContainerStatus[] | undefined,
  path: FieldPath,
  spec: SpecShape,
): FieldError[] {
  const errors: FieldError[] = [];
  (old ?? []).forEach((before, i) => {
    const terminated = before.state?.terminated;
    if (terminated === undefined || terminated === null) return;
    const after = (next ?? []).find((s) => s.name === before.name && (s.state?.terminated ?? null) === null);
    if (after === undefined) return;
    const container = spec.containers?.find((c) => c.name === before.name);
    if (container === undefined || !containerShouldRestart(container, spec, terminated.exitCode ?? 0))
      errors.push(forbidden(path.index(i).child('state'), NOT_BACK));
  });
  return errors;
}

/** The first rule whose exit codes match decides when it restarts; else the container's policy, else the pod's. */
function containerShouldRestart(container: ContainerShape, spec: SpecShape, exitCode: number): boolean {
  if (container.restartPolicy !== undefined) {
    const rule = container.restartPolicyRules?.find(({ exitCodes }) => {
      if (exitCodes === undefined) return false;
      const listed = (exitCodes.values ?? []).includes(exitCode);
      return exitCodes.operator === 'In' ? listed : exitCodes.operator === 'NotIn' ? !listed : false;
    });
    if (rule?.action === 'Restart') return true;
    if (container.restartPolicy === 'Always') return true;
    if (container.restartPolicy === 'OnFailure') return exitCode !== 0;
    if (container.restartPolicy === 'Never') return false;
  }
  if (spec.restartPolicy === 'OnFailure') return exitCode !== 0;
  return spec.restartPolicy !== 'Never';
}

/** A restartable (sidecar) init container restarts whatever the pod's policy. */
export function initContainerStateTransitionErrors(
  next: readonly ContainerStatus[] | undefined,
  old: readonly ContainerStatus[] | undefined,
  path: FieldPath,
  spec: SpecShape,
): FieldError[] {
  const restartable = (name: string | undefined) =>
    spec.initContainers?.find((c) => c.name === name)?.restartPolicy === 'Always';
  return transitionErrors(
    next,
    old,
    path,
    (status, exitCode) => onFailureExcuses(spec, exitCode) || restartable(status.name),
  );
}

/** An ephemeral container is never restarted. */
export function ephemeralContainerStateTransitionErrors(
  next: readonly ContainerStatus[] | undefined,
  old: readonly ContainerStatus[] | undefined,
  path: FieldPath,
): FieldError[] {
  return transitionErrors(next, old, path, () => false);
}
