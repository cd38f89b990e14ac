/**
 * A MutatingAdmissionPolicy's evaluated mutation applied to the object, as the reference's
 * patchers apply it (mutating/patch/smd.go and json_patch.go):
 *
 * - an apply configuration is typed against the kind's schema (a field the schema does not
 *   declare, or a value of the wrong type, refuses it), may not set anything atomic (an atomic
 *   list, map or struct would lose the members it does not name), and is merged into the object
 *   with server-side apply's structural merge, owning nothing (managedFields are not touched);
 * - JSON Patch operations are applied as the reference's library (json-patch v4) applies them,
 *   with its texts; a `test` that does not hold leaves the object as it was, without error.
 *
 * Errors carry the reference's prefixes ("error applying patch: ...", "JSON Patch: ..."), since
 * the request's refusal shows them.
 */
import type { KubeObject } from '../../../api/objects';
import { isObject } from '../../json/value';
import { mergeConfiguration } from '../../apply/structured-merge';
import { fieldNode, isAtomicMap, itemNode, listTypeOf, type TypedNode } from '../../apply/schema-node';
import { typingErrors, typingErrorsText } from '../../apply/typed-patch';
import { applyJsonPatch, PatchApplyError, PatchTestFailedError } from '../../patch/json-patch';
import type { JsonPatchOperationJson } from './mutation';

export type AppliedMutation =
  { readonly ok: true; readonly object: KubeObject } | { readonly ok: false; readonly error: string };

/**
 * The paths of the atomic lists, maps and structs the configuration sets, in the reference's
 * path syntax (`.spec.containers[0].args`). Only declared fields are followed, as the reference
 * walks them.
 */
function atomicPaths(value: unknown, schema: TypedNode | undefined, path: string): string[] {
  if (schema === undefined) return [];
  if (isObject(value)) {
    const own = isAtomicMap(schema) ? [path] : [];
    return [
      ...own,
      ...Object.entries(value).flatMap(([key, member]) =>
        schema.node.properties?.[key] === undefined
          ? []
          : atomicPaths(member, fieldNode(schema, key), `${path}.${key}`),
      ),
    ];
  }
  if (Array.isArray(value) && schema.node.type === 'array') {
    const own = listTypeOf(schema) === 'atomic' ? [path] : [];
    const items = itemNode(schema);
    return [...own, ...value.flatMap((item, index) => atomicPaths(item, items, `${path}[${index}]`))];
  }
  return [];
}

/**
 * Merges the apply configuration into `object` (which is not changed). The nulls the
 * configuration set stay in the result, for the caller to read as the kind's type reads them.
 */
export function applyConfiguration(
  object: KubeObject,
  configuration: Record<string, unknown>,
  schema: TypedNode | undefined,
): AppliedMutation {
  // The configuration is typed as the object's kind, as the reference sets its group-version-kind.
  const typed = { ...configuration, apiVersion: object.apiVersion, kind: object.kind };
  const failed = (error: string): AppliedMutation => ({ ok: false, error: `error applying patch: ${error}` });
  const errors = typingErrors(typed, schema);
  if (errors.length > 0) return failed(`failed to convert patch object to typed object: ${typingErrorsText(errors)}`);
  const atomics = atomicPaths(typed, schema, '');
  if (atomics.length > 0)
    return failed(`invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}`);
  return { ok: true, object: mergeConfiguration(object, typed, schema) as KubeObject };
}

/** Applies the operations to `object` (which is not changed), one by one as the reference's library does. */
export function applyJsonPatchMutation(
  object: KubeObject,
  operations: readonly JsonPatchOperationJson[],
): AppliedMutation {
  try {
    let patched: unknown = object;
    for (const operation of operations) patched = applyJsonPatch(patched, [{ ...operation }]);
    return { ok: true, object: patched as KubeObject };
  } catch (error) {
    if (error instanceof PatchTestFailedError) return { ok: true, object };
    if (error instanceof PatchApplyError) return { ok: false, error: `JSON Patch: ${error.message}` };
    throw error;
  }
}
