/**
 * The files a volume writes and the paths a container mounts at, as the reference checks them:
 * relative, never stepping out of their directory, not named like the kubelet's own `..data`,
 * with a Unix file mode. Shared by volume sources, projections, downward API files and mounts.
 */
import type { FieldError } from '../status/field-error';
import { invalid, required, type FieldPath } from '../status/field-errors';

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';
const MAX_FILE_MODE = 0o777;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A path with no `..` element, reported once however many there are. */
export function pathNoBackstepsErrors(target: string, path: FieldPath): FieldError[] {
  return target.split('/').includes('..') ? [invalid(path, target, "must not contain '..'")] : [];
}

/** A path below a directory: relative, and never stepping up out of it. */
export function localDescendingPathErrors(target: string, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (target.startsWith('/')) errors.push(invalid(path, target, 'must be a relative path'));
  errors.push(...pathNoBackstepsErrors(target, path));
  return errors;
}

/** A file a volume writes: below the volume, and not named like `..data`, which the kubelet keeps for itself. */
export function localNonReservedPathErrors(target: string, path: FieldPath): FieldError[] {
  const errors = localDescendingPathErrors(target, path);
  if (target.startsWith('..') && !target.startsWith('../'))
    errors.push(invalid(path, target, "must not start with '..'"));
  return errors;
}

export function fileModeErrors(mode: unknown, path: FieldPath): FieldError[] {
  return typeof mode === 'number' && (mode < 0 || mode > MAX_FILE_MODE) ? [invalid(path, mode, FILE_MODE_ERROR)] : [];
}

/** One item of a secret or config map source: a key, written to a relative path, with a file mode. */
export function keyToPathErrors(item: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (text(item.key) === '') errors.push(required(path.child('key')));
  if (text(item.path) === '') errors.push(required(path.child('path')));
  errors.push(...localNonReservedPathErrors(text(item.path), path.child('path')));
  errors.push(...fileModeErrors(item.mode, path.child('mode')));
  return errors;
}
