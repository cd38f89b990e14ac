/**
 * The PATCH content types this server accepts: the patches applied to the current object
 * (JSON Patch, merge patch, strategic merge), one entry each, and the server-side apply
 * types, which the handler runs through the apply engine instead.
 */
import type { KubeObject } from '../../api/objects';
import type { ApplyBodyFormat } from '../apply/apply-body';
import { applyJsonPatch, MalformedPatchError, parseJsonPatch, PatchApplyError } from '../patch/json-patch';
import { applyMergePatch } from '../patch/merge-patch';
import { applyStrategicMergePatch, StrategicMergePatchError } from '../patch/strategic-merge';
import { rootSchemaNode } from '../apply/schema-node';
import { definitionForKind, schemaData } from '../schema/definitions';
import type { Definitions } from '../validation/decode';
import { checkNestingDepth } from '../request/nesting';
import { goMarshalPatched, isObject, type Touched } from '../json/value';
import { goValue } from '../apply/go-print';
import { badRequest, unsupportedMediaType } from '../status/catalogue';
import { StatusError } from '../status/status-error';

export interface PatchType {
  /** Reads the patch document once, before the object is read (a malformed one is a 400). */
  parse(body: Buffer): unknown;
  /** The patched object (a new value); `current` is the object in the request's version. */
  apply(current: KubeObject, patch: unknown): unknown;
  /**
   * What the reference's 422 prints as the `patch` value when the patched object cannot be
   * decoded: the patched JSON, re-marshalled from a map, for JSON and merge patches; the patch
   * itself, as Go's `%v` prints its map, for a strategic one.
   */
  shown(patch: unknown, patched: unknown): string;
}

/** The reference's answer to a patch that parses but cannot apply: 422 with the library's text as a cause. */
function cannotApply(message: string): StatusError {
  return new StatusError({
    code: 422,
    reason: 'Invalid',
    message: 'the server rejected our request due to an error in our request',
    details: { causes: [{ reason: 'UnexpectedServerResponse', message }] },
  });
}

function parseJSONDocument(body: Buffer): unknown {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw badRequest((error as Error).message);
  }
  // Merging walks the document recursively.
  checkNestingDepth(document, 'json');
  return document;
}

/** The containers JSON Patch operations open: every parent of each `path` and `from`. */
function openedByOperations(operations: readonly { path: string; from?: string }[]): Touched {
  const root: Record<string, Touched> = {};
  for (const operation of operations) {
    for (const pointer of [operation.path, operation.from]) {
      if (typeof pointer !== 'string') continue;
      let node = root;
      for (const token of pointer.split('/').slice(1, -1)) {
        const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
        node = (node[key] ??= {}) as Record<string, Touched>;
      }
    }
  }
  return root;
}

/** The containers a merge patch opens: those its objects merge into. */
function openedByMerge(patch: unknown): Touched {
  const opened: Record<string, Touched> = {};
  if (isObject(patch))
    for (const key of Object.keys(patch)) if (isObject(patch[key])) opened[key] = openedByMerge(patch[key]);
  return opened;
}

const jsonPatch: PatchType = {
  parse(body) {
    try {
      const operations = parseJsonPatch(body.toString('utf8'));
      checkNestingDepth(operations, 'json');
      return operations;
    } catch (error) {
      if (error instanceof MalformedPatchError) throw badRequest(error.message);
      throw error;
    }
  },
  apply(current, patch) {
    try {
      return applyJsonPatch(current, patch as ReturnType<typeof parseJsonPatch>);
    } catch (error) {
      if (error instanceof PatchApplyError) throw cannotApply(error.message);
      throw error;
    }
  },
  shown: (patch, patched) => goMarshalPatched(patched, openedByOperations(patch as ReturnType<typeof parseJsonPatch>)),
};

const mergePatch: PatchType = {
  parse(body) {
    const patch = parseJSONDocument(body);
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      throw badRequest(
        `json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch} into Go value of type map[string]interface {}`,
      );
    }
    return patch;
  },
  apply: (current, patch) => applyMergePatch(current, patch),
  shown: (patch, patched) => goMarshalPatched(patched, openedByMerge(patch)),
};

/** What a custom resource's endpoints take, in the order of the reference's 415 message: no strategic merge. */
export const CUSTOM_RESOURCE_PATCH_TYPES: readonly string[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

/**
 * Strategic merge needs the kind's Go schema; kinds without one (custom resources) answer 415
 * listing the other types. The definition is found by the object's apiVersion and kind, since
 * this entry is not given the handler scope.
 */
const strategicMergePatch: PatchType = {
  parse(body) {
    // Unlike a merge patch, a strategic one decodes `null` as an empty patch.
    if (body.toString('utf8').trim() === 'null') return {};
    const patch = mergePatch.parse(body) as Record<string, unknown>;
    // A directive on the whole object would replace or delete it; the reference refuses it.
    if (patch.$patch === 'replace' || patch.$patch === 'delete')
      throw badRequest(`$patch: ${String(patch.$patch)} may not be used on the whole object`);
    return patch;
  },
  apply(current, patch) {
    const apiVersion = current.apiVersion ?? '';
    const slash = apiVersion.lastIndexOf('/');
    const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
    const version = apiVersion.slice(slash + 1);
    const found = definitionForKind({ group, version, kind: current.kind ?? '' });
    if (found === undefined) throw unsupportedMediaType(CUSTOM_RESOURCE_PATCH_TYPES);
    const schema = rootSchemaNode(schemaData().definitions as unknown as Definitions, found.name);
    try {
      // The reference reads the merged map into the typed object, whose apiVersion and kind
      // are not checked and then dropped: a strategic patch cannot change them.
      const merged = applyStrategicMergePatch(current, patch, schema);
      return { ...merged, apiVersion: current.apiVersion, kind: current.kind };
    } catch (error) {
      if (!(error instanceof StrategicMergePatchError)) throw error;
      if (error.code === 400) throw badRequest(error.message);
      if (error.code === 422) throw cannotApply(error.message);
      // The reference lets the library's other complaints (an unknown $patch directive, a
      // list item without its merge key) through as 500s; they are faults of the patch.
      throw badRequest(error.message);
    }
  },
  shown: (patch) => goValue(patch),
};

export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/** In the order the reference lists accepted types in its 415 message. */
export const PATCH_TYPES: ReadonlyMap<string, PatchType> = new Map([
  ['application/json-patch+json', jsonPatch],
  ['application/merge-patch+json', mergePatch],
  [STRATEGIC_MERGE_PATCH, strategicMergePatch],
]);

const APPLY_PATCH_TYPES: ReadonlyMap<string, ApplyBodyFormat> = new Map([
  ['application/apply-patch+yaml', 'yaml'],
  ['application/apply-patch+cbor', 'cbor'],
]);

/** Whether a media type is server-side apply, and in which body format; CBOR only behind its gate. */
export function applyBodyFormatOf(mediaType: string, options: { readonly cbor: boolean }): ApplyBodyFormat | undefined {
  const format = APPLY_PATCH_TYPES.get(mediaType);
  return format === 'cbor' && !options.cbor ? undefined : format;
}

/** Every PATCH type, in the order of the reference's 415 message. */
export function acceptedPatchTypes(options: { readonly cbor: boolean }): string[] {
  return [
    ...PATCH_TYPES.keys(),
    ...[...APPLY_PATCH_TYPES.keys()].filter((type) => applyBodyFormatOf(type, options) !== undefined),
  ];
}
