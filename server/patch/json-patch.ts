/**
 * JSON Patch (RFC 6902) through fast-json-patch, with failures worded as the reference's
 * json-patch library words them, since clients print them.
 */
import { applyPatch, JsonPatchError, validate, type Operation } from 'fast-json-patch';

/** The patch document is not a valid JSON Patch: a 400 for the caller. */
export class MalformedPatchError extends Error {}

/** A valid patch that cannot be applied to this document (a failed `test`, a missing path): a 422. */
export class PatchApplyError extends Error {}

export function parseJsonPatch(body: string): Operation[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new MalformedPatchError(`invalid JSON Patch: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) {
    throw new MalformedPatchError(`json: cannot unmarshal ${parsed === null ? 'null' : typeof parsed === 'object' ? 'object' : typeof parsed} into Go value of type jsonpatch.Patch`);
  }
  for (const operation of parsed as Array<Record<string, unknown>>) {
    if (typeof operation !== 'object' || operation === null || typeof operation.op !== 'string') {
      throw new MalformedPatchError('Unexpected kind: unknown');
    }
    if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(operation.op)) {
      throw new MalformedPatchError(`Unexpected kind: ${operation.op}`);
    }
  }
  return parsed as Operation[];
}

function describe(operation: Operation | undefined, error: JsonPatchError): string {
  const path = operation?.path ?? '';
  switch (error.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${path} failed: test failed`;
    case 'OPERATION_PATH_UNRESOLVABLE':
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

/** Applies to a copy; the input document is not changed. */
export function applyJsonPatch(document: unknown, operations: readonly Operation[]): unknown {
  const problem = validate(operations as Operation[], document);
  if (problem !== undefined) throw new PatchApplyError(describe(problem.operation as Operation | undefined, problem));
  try {
    return applyPatch(structuredClone(document), operations as Operation[], true, true).newDocument;
  } catch (error) {
    if (error instanceof JsonPatchError) throw new PatchApplyError(describe(error.operation as Operation | undefined, error));
    throw error;
  }
}
