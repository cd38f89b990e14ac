/**
 * What a client is told about stored values that cannot be read (a key gone from the
 * EncryptionConfiguration, a KMS plugin's key lost, corrupted bytes), in kube-apiserver 1.34's
 * words. The feature gate AllowUnsafeMalformedObjectDeletion changes them, as it changes the
 * reference's storage: by default a read fails with the transformer's or decoder's error, and a
 * list with its first unreadable object; with the gate, a get or delete names the object's key
 * as a corrupt object (so that it can be force-deleted), a list names every unreadable object,
 * and an update's read and a watch say what failed.
 */
import { corruptionText, corruptObjectText, ObjectError, type CorruptValue } from '../../storage/errors';
import { internalError, unclassified } from './catalogue';
import { StatusError, type StatusCause, type StatusDetails } from './status-error';

/** What storage says of one unreadable value (ObjectError details): the value, and where it was met. */
type CorruptObjectDetails = Pick<ObjectError['details'], 'corruptIn'> & { readonly corrupt: CorruptValue };

/** How the server was started, as far as the words for corrupt objects go. */
export interface CorruptObjectWording {
  /** The gate AllowUnsafeMalformedObjectDeletion. */
  readonly unsafeDeletion: boolean;
  /** `--etcd-prefix`: a single object is named by its key below it, as the reference's registry names it. */
  readonly etcdPrefix: string;
}

/**
 * The reference's answer for one object whose value cannot be read: a get or a delete names it
 * as a corrupt object; an update's read (put, patch, apply) says what failed, naming no key.
 */
export function corruptObjectStatus(
  details: CorruptObjectDetails,
  wording: CorruptObjectWording | undefined,
): StatusError {
  const { corrupt } = details;
  if (!wording?.unsafeDeletion) return readFailure(corrupt, corrupt.cause);
  if (details.corruptIn === 'update') return readFailure(corrupt, corruptionText(corrupt));
  return internalError(corruptObjectText(corrupt, registryKey(corrupt.key, wording)));
}

/** The reference's answer for a list that met unreadable values (`error` holds them in key order). */
export function corruptListStatus(
  error: ObjectError,
  details: StatusDetails,
  wording: CorruptObjectWording | undefined,
): StatusError {
  const values = error.details.corruptValues ?? [];
  if (!wording?.unsafeDeletion) {
    // The reference's list stops at the first; a value that did not open is named by its key.
    const [first] = values;
    return readFailure(
      first,
      first.failure === 'untransformable' ? `unable to transform key "${first.key}": ${first.cause}` : first.cause,
    );
  }
  const causes: StatusCause[] = values.map((value) => ({
    reason: 'UnexpectedServerResponse',
    message: corruptObjectText(value),
    field: value.key,
  }));
  // metav1.CauseTypeTooMany, whose value is FieldValueTooMany.
  if (error.details.moreCorruptValues)
    causes.push({ reason: 'FieldValueTooMany', message: 'too many errors, the list is truncated' });
  return new StatusError({
    code: 500,
    reason: 'StorageReadError',
    message: error.message,
    details: { ...details, name: error.details.name, causes },
  });
}

/**
 * The ERROR event of a watch that met an unreadable value. The reference's etcd watcher opens
 * values through the transformer (which the gate wraps, as for reads) but decodes them with the
 * bare codec; either error reaches the watcher as an InternalError naming no key, but for a
 * wrapped one that a deletion removed, which it reports as a StorageReadError.
 */
export function corruptWatchEventStatus(
  details: CorruptObjectDetails,
  wording: CorruptObjectWording | undefined,
): StatusError {
  const { corrupt } = details;
  if (!wording?.unsafeDeletion || corrupt.failure !== 'untransformable') return internalError(corrupt.cause);
  if (details.corruptIn !== 'deletion') return internalError(corruptionText(corrupt));
  return new StatusError({
    code: 500,
    reason: 'StorageReadError',
    message: `saw a DELETED event, but object data is corrupt - ${corruptionText(corrupt)}`,
  });
}

/**
 * A transformer's error reaches the client as the reference's storage.InternalError (wrapped);
 * a decoder's as the bare error, a 500 without reason.
 */
function readFailure(corrupt: CorruptValue, message: string): StatusError {
  return corrupt.failure === 'untransformable' ? internalError(message) : unclassified(message);
}

function registryKey(storeKey: string, wording: CorruptObjectWording): string {
  const root = wording.etcdPrefix.replace(/\/+$/, '');
  return storeKey.startsWith(`${root}/`) ? storeKey.slice(root.length) : storeKey;
}
