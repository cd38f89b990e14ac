/**
 * JSON Patch (RFC 6902) through fast-json-patch, with failures worded as the reference's
 * json-patch library words them, since clients print them.
 */
import { applyPatch, getValueByPointer, JsonPatchError, validate, type Operation } from 'fast-json-patch';
import { isObject } from '../json/value';

/** The patch document is not a valid JSON Patch: a 400 for the caller. */
export class MalformedPatchError extends Error {}

/** A valid patch that cannot be applied to this document (a failed `test`, a missing path): a 422. */
export class PatchApplyError extends Error {}

/** A `test` operation that did not hold: callers that treat it as "leave the document" tell it apart. */
export class PatchTestFailedError extends PatchApplyError {}

export function parseJsonPatch(body: string): Operation[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new MalformedPatchError(`invalid JSON Patch: ${(error as Error).message}`);
  }
  // `null` decodes to an empty patch in Go: nothing to do.
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) {
    throw new MalformedPatchError(
      `json: cannot unmarshal ${typeof parsed === 'object' ? 'object' : typeof parsed} into Go value of type jsonpatch.Patch`,
    );
  }
  // Each operation decodes into a map: a null one is empty (refused when applied), a scalar or list does not decode.
  for (const item of parsed) {
    if (item !== null && (typeof item !== 'object' || Array.isArray(item))) {
      throw new MalformedPatchError(
        `json: cannot unmarshal ${Array.isArray(item) ? 'array' : typeof item} into Go value of type jsonpatch.Operation`,
      );
    }
  }
  return parsed as Operation[];
}

/**
 * The checks the reference's library makes as it applies each operation (a 422, not a 400):
 * a known `op`, a `path`; an operation without `value` carries null.
 */
function checkedOperations(operations: readonly unknown[]): Operation[] {
  return operations.map((item) => {
    const operation = item as Record<string, unknown> | null;
    if (
      typeof operation !== 'object' ||
      operation === null ||
      Array.isArray(operation) ||
      typeof operation.op !== 'string'
    ) {
      throw new PatchApplyError('Unexpected kind: unknown');
    }
    if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(operation.op))
      throw new PatchApplyError(`Unexpected kind: ${operation.op}`);
    if (typeof operation.path !== 'string')
      throw new PatchApplyError(`${operation.op} operation does not apply: doc is missing path: "": missing value`);
    // The whole document is no member: removing or replacing it is refused, as the reference does.
    if (operation.path === '' && operation.op !== 'test')
      throw new PatchApplyError(`${operation.op} operation does not apply: doc is missing path: "": missing value`);
    if (
      (operation.op === 'add' || operation.op === 'replace' || operation.op === 'test') &&
      !Object.hasOwn(operation, 'value')
    ) {
      return { ...operation, value: null } as Operation;
    }
    return operation as unknown as Operation;
  });
}

function failure(operation: Operation | undefined, error: JsonPatchError): PatchApplyError {
  const message = describe(operation, error);
  return error.name === 'TEST_OPERATION_FAILED' ? new PatchTestFailedError(message) : new PatchApplyError(message);
}

function describe(operation: Operation | undefined, error: JsonPatchError): string {
  const path = operation?.path ?? '';
  switch (error.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${path} failed: test failed`;
    case 'OPERATION_PATH_UNRESOLVABLE':
    case 'OPERATION_PATH_CANNOT_ADD':
      return `${operation?.op ?? 'replace'} operation does not apply: doc is missing path: "${path}": missing value`;
    case 'OPERATION_FROM_UNRESOLVABLE':
      return `${operation?.op ?? 'move'} operation does not apply: doc is missing from path: "${(operation as { from?: string } | undefined)?.from ?? ''}": missing value`;
    case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX':
    case 'OPERATION_VALUE_OUT_OF_BOUNDS':
      return `${operation?.op ?? 'add'} operation does not apply: doc is missing path: "${path}": index out of range`;
    default:
      return error.message.split('\n')[0];
  }
}

/** The operation as json-patch v4 applies it to `document`: a `replace` of a member its object lacks is an `add`. */
function asVersion4Applies(document: unknown, operation: Operation): Operation {
  if (operation.op !== 'replace') return operation;
  const slash = operation.path.lastIndexOf('/');
  if (slash < 0) return operation;
  let parent: unknown;
  try {
    parent = getValueByPointer(document, operation.path.slice(0, slash));
  } catch {
    return operation;
  }
  const key = operation.path
    .slice(slash + 1)
    .replaceAll('~1', '/')
    .replaceAll('~0', '~');
  return isObject(parent) && !Object.hasOwn(parent, key) ? { ...operation, op: 'add' } : operation;
}

/**
 * Applies to a copy, one operation after another as the reference's library (json-patch v4)
 * does, so that each `replace` is read against the document the ones before it left; the input
 * document is not changed.
 */
export function applyJsonPatch(document: unknown, patch: readonly Operation[]): unknown {
  let patched = structuredClone(document);
  for (const operation of checkedOperations(patch)) {
    const applied = asVersion4Applies(patched, operation);
    const problem = validate([applied], patched);
    if (problem !== undefined) throw failure(operation, problem);
    try {
      patched = applyPatch(patched, [applied], false, true).newDocument;
    } catch (error) {
      if (error instanceof JsonPatchError) throw failure(operation, error);
      throw error;
    }
  }
  return patched;
}
