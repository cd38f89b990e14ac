/**
 * The seccomp annotations that the `seccompProfile` fields replaced (non-functional since v1.27):
 * `seccomp.security.alpha.kubernetes.io/pod` and `container.seccomp.security.alpha.kubernetes.io/<container>`.
 * The reference still holds each to a profile of the old format on every write of a pod or
 * template (ValidateSeccompPodAnnotations), and to agree with a profile field set beside it
 * (validateSeccompAnnotationsAndFields) on a pod's create and on every write of a template.
 */
import type { FieldError } from '../status/field-error';
import { invalid, type FieldPath } from '../status/field-errors';
import { containersOf, type ContainerLists } from './pod-containers';
import {
  LOCALHOST_PREFIX,
  profileAnnotationMismatch,
  type ProfileAnnotationKind,
  type ProfileField,
} from './profile-annotations';
import { localDescendingPathErrors } from './volume-file-paths';

export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

const SECCOMP: ProfileAnnotationKind = { name: 'seccomp', runtimeDefault: ['runtime/default', 'docker/default'] };

interface SeccompContext {
  securityContext?: { seccompProfile?: ProfileField | null } | null;
}

export interface SeccompPodSpec extends ContainerLists<(SeccompContext & { name?: string }) | null> {
  securityContext?: { seccompProfile?: ProfileField | null } | null;
}

/** A profile of the annotations' format: a fixed one, or a file below the kubelet's seccomp directory. */
function seccompProfileErrors(profile: string, path: FieldPath): FieldError[] {
  if (['runtime/default', 'docker/default', 'unconfined'].includes(profile)) return [];
  if (profile.startsWith(LOCALHOST_PREFIX))
    return localDescendingPathErrors(profile.slice(LOCALHOST_PREFIX.length), path);
  return [invalid(path, profile, 'must be a valid seccomp profile')];
}

/**
 * The pod's annotation, then the containers' (named or not; the reference walks a Go map for
 * these, in no fixed order, so the annotations' own order stands here). The reference names them
 * as members of the path, not keys: `metadata.annotations.seccomp.security.alpha.kubernetes.io/pod`.
 */
export function seccompAnnotationErrors(
  annotations: Readonly<Record<string, string>> | undefined,
  annotationsPath: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const podProfile = annotations?.[SECCOMP_POD_ANNOTATION];
  if (podProfile !== undefined)
    errors.push(...seccompProfileErrors(podProfile, annotationsPath.child(SECCOMP_POD_ANNOTATION)));
  for (const [key, profile] of Object.entries(annotations ?? {}))
    if (key.startsWith(SECCOMP_CONTAINER_ANNOTATION_PREFIX))
      errors.push(...seccompProfileErrors(profile, annotationsPath.child(key)));
  return errors;
}

/** Each profile field (the pod's, then each container's) against the annotation for the same pod or container. */
export function seccompFieldMismatches(
  annotations: Readonly<Record<string, string>> | undefined,
  spec: SeccompPodSpec | undefined,
  specPath: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const judge = (key: string, field: ProfileField | null | undefined, path: FieldPath) => {
    if (field !== undefined && field !== null && annotations !== undefined && Object.hasOwn(annotations, key))
      errors.push(...profileAnnotationMismatch(SECCOMP, annotations[key], field, path.child('seccompProfile')));
  };
  judge(SECCOMP_POD_ANNOTATION, spec?.securityContext?.seccompProfile, specPath.child('securityContext'));
  for (const [container, path] of containersOf(spec ?? {}, specPath))
    judge(
      SECCOMP_CONTAINER_ANNOTATION_PREFIX + (container?.name ?? ''),
      container?.securityContext?.seccompProfile,
      path.child('securityContext'),
    );
  return errors;
}
