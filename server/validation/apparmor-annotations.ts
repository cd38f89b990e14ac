/**
 * The container AppArmor annotations that the `appArmorProfile` fields replaced in v1.30: what
 * profile each stands for, the deprecation warning the reference sends where one is still
 * written (for a Pod as it copies the annotation to the field, for a pod template as is), the
 * format and container it must still have, and its agreement with the profile field in force
 * for its container.
 */
import type { FieldError } from '../status/field-error';
import { invalid, type FieldPath } from '../status/field-errors';
import { goQuote } from '../../api/go-quote';
import { containersOf, type ContainerLists } from './pod-containers';
import { profileAnnotationMismatch, type ProfileAnnotationKind, type ProfileField } from './profile-annotations';

export interface AppArmorProfile {
  readonly type: string;
  readonly localhostProfile?: string;
}

export const APPARMOR_CONTAINER_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

/** The profile field an AppArmor annotation stands for (the reference's ApparmorFieldForAnnotation). */
export function appArmorProfileOf(annotation: string): AppArmorProfile | undefined {
  if (annotation === 'unconfined') return { type: 'Unconfined' };
  if (annotation === 'runtime/default') return { type: 'RuntimeDefault' };
  if (annotation.startsWith('localhost/') && annotation.length > 'localhost/'.length)
    return { type: 'Localhost', localhostProfile: annotation.slice('localhost/'.length) };
  return undefined;
}

/** Whether a profile field (absent or null: none) is the one an annotation stands for. */
export function sameProfile(field: unknown, annotated: AppArmorProfile | undefined): boolean {
  if (field === undefined || field === null || annotated === undefined) return false;
  const profile = field as { type?: string; localhostProfile?: string };
  return profile.type === annotated.type && profile.localhostProfile === annotated.localhostProfile;
}

/** `<annotations path>[<key>]: deprecated since v1.30; use the "appArmorProfile" field instead`. */
export function appArmorAnnotationWarning(key: string, annotationsPath: FieldPath): string {
  return `${annotationsPath.key(key).toString()}: deprecated since v1.30; use the "appArmorProfile" field instead`;
}

/** The annotation values the beta format knew: empty (unset), the two fixed ones, or a localhost profile. */
function profileFormatError(annotation: string): string | undefined {
  if (['', 'runtime/default', 'unconfined'].includes(annotation) || annotation.startsWith('localhost/'))
    return undefined;
  return `invalid AppArmor profile name: ${goQuote(annotation)}`;
}

/**
 * A pod's or template's container AppArmor annotations, as the reference's
 * ValidateAppArmorPodAnnotations judges them on every write: each names one of the containers
 * (`containerNames`: init, regular and ephemeral) and holds a profile of the beta format.
 */
export function appArmorAnnotationErrors(
  annotations: Readonly<Record<string, string>> | undefined,
  containerNames: ReadonlySet<string>,
  annotationsPath: FieldPath,
): FieldError[] {
  return Object.entries(annotations ?? {}).flatMap(([key, annotation]) => {
    if (!key.startsWith(APPARMOR_CONTAINER_ANNOTATION_PREFIX)) return [];
    const path = annotationsPath.key(key);
    const container = key.slice(APPARMOR_CONTAINER_ANNOTATION_PREFIX.length);
    const formatError = profileFormatError(annotation);
    return [
      ...(containerNames.has(container) ? [] : [invalid(path, container, 'container not found')]),
      ...(formatError === undefined ? [] : [invalid(path, annotation, formatError)]),
    ];
  });
}

const APPARMOR: ProfileAnnotationKind = { name: 'apparmor', runtimeDefault: ['runtime/default'] };

interface AppArmorContext {
  securityContext?: { appArmorProfile?: ProfileField | null } | null;
}

export interface AppArmorPodSpec extends ContainerLists<(AppArmorContext & { name?: string }) | null> {
  os?: { name?: string } | null;
  securityContext?: { appArmorProfile?: ProfileField | null } | null;
}

/**
 * Each container's annotation against the profile in force for it (its own field, else the
 * pod's), as the reference's validateAppArmorAnnotationsAndFieldsMatchOnCreate judges a new pod
 * (after its annotations were copied to the fields) and every write of a template. Windows pods
 * have no AppArmor and are not judged.
 */
export function appArmorFieldMismatches(
  annotations: Readonly<Record<string, string>> | undefined,
  spec: AppArmorPodSpec | undefined,
  specPath: FieldPath,
): FieldError[] {
  if (spec?.os?.name === 'windows' || annotations === undefined) return [];
  const podProfile = spec?.securityContext?.appArmorProfile;
  return containersOf(spec ?? {}, specPath).flatMap(([container, path]) => {
    const profile = container?.securityContext?.appArmorProfile ?? podProfile;
    const key = APPARMOR_CONTAINER_ANNOTATION_PREFIX + (container?.name ?? '');
    if (profile === undefined || profile === null || !Object.hasOwn(annotations, key)) return [];
    return profileAnnotationMismatch(
      APPARMOR,
      annotations[key],
      profile,
      path.child('securityContext', 'appArmorProfile'),
    );
  });
}
