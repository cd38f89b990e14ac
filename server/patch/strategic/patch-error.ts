/**
 * What the reference's strategic merge library refuses a patch with, and the texts of the
 * library's errors that the checks here repeat.
 */
import { goTypeName, goValue } from '../../apply/go-print';

/**
 * A patch the reference rejects; `code` is the status it answers with (500 where the handler
 * passes the library's error through unchanged, which capstan answers as the patch's fault).
 */
export class StrategicMergePatchError extends Error {
  constructor(
    message: string,
    readonly code: 400 | 422 | 500,
  ) {
    super(message);
  }
}

/** Go's `reflect.TypeOf` of a decoded JSON value, as `%s` prints it (a nil type is a bad verb there). */
function goReflectType(value: unknown): string {
  return value === null || value === undefined ? '%!s(<nil>)' : goTypeName(value);
}

/** The library's mergepatch.ErrBadArgType: a value of another type than it expected. */
export function badArgType(expected: '[]interface {}' | 'map[string]interface {}', actual: unknown) {
  return new StrategicMergePatchError(`expected a ${expected}, but received a ${goReflectType(actual)}`, 500);
}

/** The library's mergepatch.ErrNoMergeKey. */
export function noMergeKey(item: Record<string, unknown>, mergeKey: string): StrategicMergePatchError {
  return new StrategicMergePatchError(`map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`, 500);
}

export const badSetElementOrder = () =>
  new StrategicMergePatchError('invalid patch format of setElementOrder list', 400);

export const noListOfLists = () => new StrategicMergePatchError('lists of lists are not supported', 422);

/**
 * Where the library uses a map or a list as a Go map key or compares two of them (the items of
 * a list without a merge key), or asks a null item its type, Go panics and the reference drops
 * the connection without an answer. Such a patch is as faulty as one the library refuses, so it
 * is refused the same way.
 */
export function uncomparableItem(list: string, item: unknown): StrategicMergePatchError {
  return new StrategicMergePatchError(
    `${list}: the items of a list without a merge key must be scalars, not ${goValue(item)}`,
    500,
  );
}

export function nullFirstItem(list: string): StrategicMergePatchError {
  return new StrategicMergePatchError(`${list}: the first item of a merged list may not be null`, 500);
}
