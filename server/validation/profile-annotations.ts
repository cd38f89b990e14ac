/**
 * The deprecated seccomp and AppArmor annotations beside the profile fields that replaced them:
 * where a pod or template sets both for a container (or the pod), the reference holds them to
 * agree, with the same rule for either kind. The annotation must have the form of the field's
 * type, and a `localhost/<name>` one must name the field's profile; a field of a type neither
 * knows is judged by the field's own rules alone.
 */
import type { FieldError } from '../status/field-error';
import { forbidden, type FieldPath } from '../status/field-errors';

export interface ProfileField {
  readonly type?: string;
  readonly localhostProfile?: string | null;
}

export interface ProfileAnnotationKind {
  /** How the messages name the kind: `seccomp`, `apparmor`. */
  readonly name: string;
  /** The annotation values that stand for the RuntimeDefault type. */
  readonly runtimeDefault: readonly string[];
}

/** How an annotation names a profile file on the node, for either kind. */
export const LOCALHOST_PREFIX = 'localhost/';

/** The annotation against the profile field at `path`. */
export function profileAnnotationMismatch(
  kind: ProfileAnnotationKind,
  annotation: string,
  field: ProfileField,
  path: FieldPath,
): FieldError[] {
  const typeMismatch = [forbidden(path.child('type'), `${kind.name} type in annotation and field must match`)];
  switch (field.type) {
    case 'Unconfined':
      return annotation === 'unconfined' ? [] : typeMismatch;
    case 'RuntimeDefault':
      return kind.runtimeDefault.includes(annotation) ? [] : typeMismatch;
    case 'Localhost':
      if (!annotation.startsWith(LOCALHOST_PREFIX)) return typeMismatch;
      return annotation.slice(LOCALHOST_PREFIX.length) === field.localhostProfile
        ? []
        : [forbidden(path.child('localhostProfile'), `${kind.name} profile in annotation and field must match`)];
    default:
      return [];
  }
}
