/**
 * The operating system a pod spec declares (`spec.os.name`) and the fields it rules out, as the
 * reference's validateOS, validateLinux and validateWindows judge them at the end of a pod's or
 * template's spec: a Linux pod has no Windows options; a Windows pod none of the Linux security
 * settings, at the pod level or in any container. With no OS declared, nothing is ruled out.
 */
import type { FieldError } from '../status/field-error';
import { forbidden, notSupported, required, type FieldPath } from '../status/field-errors';
import { containersOf, type ContainerLists } from './pod-containers';

type Json = Record<string, unknown>;

export interface PodOSSpec extends ContainerLists<{ securityContext?: Json | null } | null> {
  os?: { name?: string } | null;
  securityContext?: Json | null;
  [field: string]: unknown;
}

const OPERATING_SYSTEMS = ['linux', 'windows'];
const NOT_FOR_WINDOWS = 'cannot be set for a windows pod';

const isSet = (value: unknown) => value !== undefined && value !== null;

/**
 * A Windows pod's ruled-out pod-level fields, in the reference's order: where v1 keeps a field on
 * the spec rather than in its security context (`spec.hostPID`), `onSpec` says so. A switch counts
 * only when on, the sysctls only when there are some; any other field counts once written, an
 * empty list of supplemental groups too.
 */
const WINDOWS_POD_FIELDS: readonly { name: string; onSpec?: true; counts?: (value: unknown) => boolean }[] = [
  { name: 'appArmorProfile' },
  { name: 'seLinuxOptions' },
  { name: 'hostUsers', onSpec: true },
  { name: 'hostPID', onSpec: true, counts: (value) => value === true },
  { name: 'hostIPC', onSpec: true, counts: (value) => value === true },
  { name: 'seccompProfile' },
  { name: 'fsGroup' },
  { name: 'fsGroupChangePolicy' },
  { name: 'sysctls', counts: (value) => Array.isArray(value) && value.length > 0 },
  { name: 'shareProcessNamespace', onSpec: true },
  { name: 'runAsUser' },
  { name: 'runAsGroup' },
  { name: 'supplementalGroups' },
  { name: 'supplementalGroupsPolicy' },
  { name: 'seLinuxChangePolicy' },
];

/** A Windows container's ruled-out security context fields, in the reference's order. */
const WINDOWS_CONTAINER_FIELDS = [
  'appArmorProfile',
  'seLinuxOptions',
  'seccompProfile',
  'capabilities',
  'readOnlyRootFilesystem',
  'privileged',
  'allowPrivilegeEscalation',
  'procMount',
  'runAsUser',
  'runAsGroup',
];

/** The declared OS, then what it rules out; an OS that is missing its name or unknown rules out nothing. */
export function validatePodOS(spec: PodOSSpec, specPath: FieldPath): FieldError[] {
  const os = spec.os;
  if (os === undefined || os === null) return [];
  const name = os.name ?? '';
  if (name === '') return [required(specPath.child('os', 'name'))];
  if (!OPERATING_SYSTEMS.includes(name)) return [notSupported(specPath.child('os'), name, OPERATING_SYSTEMS)];
  return name === 'linux' ? linuxErrors(spec, specPath) : windowsErrors(spec, specPath);
}

function linuxErrors(spec: PodOSSpec, specPath: FieldPath): FieldError[] {
  const message = 'windows options cannot be set for a linux pod';
  const errors: FieldError[] = [];
  if (isSet(spec.securityContext?.windowsOptions))
    errors.push(forbidden(specPath.child('securityContext', 'windowsOptions'), message));
  for (const [container, path] of containersOf(spec, specPath))
    if (isSet(container?.securityContext?.windowsOptions))
      errors.push(forbidden(path.child('securityContext', 'windowsOptions'), message));
  return errors;
}

function windowsErrors(spec: PodOSSpec, specPath: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const { name, onSpec, counts = isSet } of WINDOWS_POD_FIELDS) {
    const value = onSpec ? spec[name] : spec.securityContext?.[name];
    if (counts(value))
      errors.push(forbidden(onSpec ? specPath.child(name) : specPath.child('securityContext', name), NOT_FOR_WINDOWS));
  }
  for (const [container, path] of containersOf(spec, specPath))
    for (const name of WINDOWS_CONTAINER_FIELDS)
      if (isSet(container?.securityContext?.[name]))
        errors.push(forbidden(path.child('securityContext', name), NOT_FOR_WINDOWS));
  return errors;
}
