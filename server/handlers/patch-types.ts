/**
 * The PATCH content types this server accepts: the patches applied to the current object
 * (JSON Patch, merge patch, strategic merge), one entry each, and the server-side apply
 * types, which the handler runs through the apply engine instead.
 */
import { inGoObjectMetaMemberOrder } from '../../api/object-meta-order';
import type { KubeObject } from '../../api/objects';
import type { ApplyBodyFormat } from '../apply/apply-body';
import {
  applyJsonPatch,
  goJsonKind,
  MalformedPatchError,
  parseJsonPatch,
  PatchApplyError,
  type Operation,
} from '../patch/json-patch';
import { applyMergePatch } from '../patch/merge-patch';
import { jsonPatchStrictProblems, mapPatchStrictProblems } from '../patch/strict-problems';
import { applyStrategicMergePatch, StrategicMergePatchError } from '../patch/strategic-merge';
import { rootSchemaNode } from '../apply/schema-node';
import { definitionForKind, schemaData } from '../schema/definitions';
import { NO_REPEATED_KEYS, parseJsonKeepingNumbers, type Definitions, type RepeatedKeys } from '../validation/decode';
import { RepeatedKeyTexts, repeatedKeysOf } from '../patch/json-patch-repeated-keys';
import { firstOverflowingLiteral } from '../validation/number-literal';
import { checkNestingDepth } from '../request/nesting';
import type { FieldValidation } from '../request/query';
import { goMarshalPatched, isObject, type Touched } from '../json/value';
import { goValue } from '../apply/go-print';
import { goJSONSyntaxError } from '../../api/go-json-syntax';
import { badRequest, unsupportedMediaType } from '../status/catalogue';
import { StatusError } from '../status/status-error';
import { DEFAULT_REPRESENTATION_SETTINGS } from '../codec/representation-settings';
import type { Request } from 'express';
import type { HandlerScope } from './scope';

export interface PatchType {
  /** Reads the patch document once the object is read (a malformed one is a 400). */
  parse(body: Buffer, options: { readonly fieldValidation: FieldValidation }): unknown;
  /** The patched object (a new value); `current` is the object in the request's version. */
  apply(current: KubeObject, patch: unknown): unknown;
  /**
   * What the reference's 422 prints as the `patch` value when the patched object cannot be
   * decoded: the patched JSON, re-marshalled from a map, for JSON and merge patches; the patch
   * itself, as Go's `%v` prints its map, for a strategic one.
   */
  shown(patch: unknown, patched: unknown): string;
  /**
   * What strict decoding of the patch document itself reports (fields validated: Strict or
   * Warn), ahead of what the patched object's decoding reports.
   */
  strictProblems(body: Buffer): readonly string[];
  /**
   * Keys the patched document repeats, as the reference's strict decoding of its bytes finds
   * them (a JSON Patch's values go in as the bytes they were sent in); absent: none.
   */
  resultRepeatedKeys?(patch: unknown, patched: unknown): RepeatedKeys;
  /**
   * The reference converts the result from its map into the Go type (a strategic merge) rather
   * than decoding its JSON (decode.ts's fromMap).
   */
  readonly resultFromMap?: true;
}

/**
 * The reference's answer to a patch that parses but cannot apply: a generic 422 whose details
 * are empty. It hands the library's text to NewGenericServerResponse as a server message, which
 * a 422 neither shows nor keeps as a cause, so kubectl prints only the generic sentence.
 */
function cannotApply(): StatusError {
  return new StatusError({
    code: 422,
    reason: 'Invalid',
    message: 'the server rejected our request due to an error in our request',
    details: {},
  });
}

/**
 * The patch as JSON. A syntax error is told in Go's words, phrased by `refusal` as the decoder
 * that meets it in the reference phrases it.
 */
function parseJSONDocument(body: Buffer, refusal: (goSyntaxError: string) => string): unknown {
  const text = body.toString('utf8');
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw badRequest(refusal(goJSONSyntaxError(text)));
  }
  // Merging walks the document recursively.
  checkNestingDepth(document, 'json');
  return document;
}

/** The containers JSON Patch operations open: every parent of each `path` and `from`. */
function openedByOperations(operations: readonly Operation[]): Touched {
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

const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * Where fields are validated (Warn, the default, or Strict), the reference's handler first
 * decodes the patch into its own operation type, whose `op`, `path` and `from` are strings:
 * Go's error for the first member that is not, or for a patch or operation of the wrong kind.
 */
function operationTypeError(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The library's own decoding reports the syntax.
    return undefined;
  }
  if (parsed === null) return undefined;
  if (!Array.isArray(parsed))
    return `json: cannot unmarshal ${goJsonKind(parsed)} into Go value of type []handlers.jsonPatchOp`;
  for (const item of parsed) {
    if (item === null) continue;
    if (!isObject(item)) return `json: cannot unmarshal ${goJsonKind(item)} into Go value of type handlers.jsonPatchOp`;
    for (const [member, value] of Object.entries(item)) {
      if ((member === 'op' || member === 'path' || member === 'from') && value !== null && typeof value !== 'string')
        return `json: cannot unmarshal ${goJsonKind(value)} into Go struct field jsonPatchOp.${member} of type string`;
    }
  }
  return undefined;
}

const jsonPatch: PatchType = {
  parse(body, { fieldValidation }) {
    const text = body.toString('utf8');
    const typeError = fieldValidation === 'Ignore' ? undefined : operationTypeError(text);
    if (typeError !== undefined) throw badRequest(`error decoding patch: ${typeError}`);
    let operations: Operation[];
    try {
      operations = parseJsonPatch(text);
      checkNestingDepth(operations, 'json');
    } catch (error) {
      if (error instanceof MalformedPatchError) throw badRequest(error.message);
      throw error;
    }
    if (operations.length > MAX_JSON_PATCH_OPERATIONS)
      throw new StatusError({
        code: 413,
        reason: 'RequestEntityTooLarge',
        message: `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
      });
    // Ignored fields: repeated keys go unreported, and the last of each is decoded either way.
    const repeats = fieldValidation === 'Ignore' ? undefined : RepeatedKeyTexts.of(text, operations);
    return { operations, repeats } satisfies JsonPatchDocument;
  },
  apply(current, patch) {
    const { operations, repeats } = patch as JsonPatchDocument;
    try {
      return applyJsonPatch(current, operations, repeats);
    } catch (error) {
      if (error instanceof PatchApplyError) throw cannotApply();
      throw error;
    }
  },
  shown(patch, patched) {
    const { operations, repeats } = patch as JsonPatchDocument;
    // Metadata kept as the bytes of a value that repeats a key prints in their order.
    const metadata = isObject(patched) && isObject(patched.metadata) ? patched.metadata : undefined;
    const ordered =
      metadata !== undefined && repeats?.keptText(metadata) !== undefined ? patched : withGoMetadataOrder(patched);
    return goMarshalPatched(ordered, openedByOperations(operations), repeats?.keptText);
  },
  resultRepeatedKeys(patch, patched) {
    const { repeats } = patch as JsonPatchDocument;
    return repeats === undefined ? NO_REPEATED_KEYS : repeatedKeysOf(this.shown(patch, patched));
  },
  strictProblems: (body) => jsonPatchStrictProblems(body.toString('utf8')),
};

/** A JSON Patch as parsed: its operations, and the texts of its values that repeat a key. */
interface JsonPatchDocument {
  readonly operations: Operation[];
  readonly repeats?: RepeatedKeyTexts;
}

/**
 * The patched object with its metadata's members in Go's order. The reference patches the
 * bytes of the object as its codec wrote them, and a metadata the patch did not open keeps
 * them in the quoted result (capstan's object holds resourceVersion last). Only the quote:
 * the object itself is left as it is.
 */
function withGoMetadataOrder(patched: unknown): unknown {
  if (!isObject(patched) || !isObject(patched.metadata)) return patched;
  return { ...patched, metadata: inGoObjectMetaMemberOrder(patched.metadata) };
}

/**
 * A merge or strategic patch: a JSON object, refused as Go's decoding into a map refuses it,
 * in the words `refusal` makes of Go's error and its cause.
 */
function parseMapPatch(
  body: Buffer,
  refusal: (goError: string, cause: 'syntax' | 'type') => string,
): Record<string, unknown> {
  const patch = parseJSONDocument(body, (syntax) => refusal(syntax, 'syntax'));
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    const kind = Array.isArray(patch) ? 'array' : typeof patch;
    throw badRequest(refusal(`json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`, 'type'));
  }
  return patch as Record<string, unknown>;
}

const mergePatch: PatchType = {
  // Validating fields, the reference decodes the patch itself first ("error decoding patch");
  // ignoring them, only the merge library reads it, and says no more of its syntax than this.
  parse: (body, { fieldValidation }) => {
    // `null` decodes (as no map), then the merge library refuses it as no patch at all.
    if (body.toString('utf8').trim() === 'null') throw badRequest('Invalid JSON Patch');
    return parseMapPatch(body, (goError, cause) => {
      if (fieldValidation !== 'Ignore') return `error decoding patch: ${goError}`;
      return cause === 'syntax' ? 'Invalid JSON Patch' : goError;
    });
  },
  apply: (current, patch) => applyMergePatch(current, patch),
  shown: (patch, patched) => goMarshalPatched(withGoMetadataOrder(patched), openedByMerge(patch)),
  strictProblems: (body) => mapPatchStrictProblems(body.toString('utf8')),
};

/**
 * The reference converts a strategic merge's result into the kind's Go type, where nothing reads
 * the type meta: another kind or version the patch wrote (or a deleted one) is no error and is
 * not kept. Only a member Go cannot hold in a string still fails, when the result is typed.
 */
function withTypeMetaOf(current: KubeObject, patched: unknown): unknown {
  if (!isObject(patched)) return patched;
  const kept = { ...patched };
  for (const member of ['apiVersion', 'kind'] as const) {
    const value = kept[member];
    if (value === undefined || value === null || typeof value === 'string') kept[member] = current[member];
  }
  return kept;
}

/** Whether JSON.parse made a number of the value Infinity (a literal past float64). */
function hasInfinity(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return false;
  return (Array.isArray(value) ? value : Object.values(value)).some(hasInfinity);
}

/**
 * Strategic merge needs the kind's Go schema (endpoints of kinds without one do not take it,
 * see patchRequestType). The definition is found by the object's apiVersion and kind, since
 * this entry is not given the handler scope.
 */
const strategicMergePatch: PatchType = {
  parse(body) {
    // Unlike a merge patch, a strategic one decodes `null` as an empty patch.
    if (body.toString('utf8').trim() === 'null') return {};
    // Its decoding into a map is the first to read it, strict or not, and says only Go's words.
    const patch = parseMapPatch(body, (goError) => goError);
    // The reference decodes the patch into a map of Go numbers: one past float64 is no patch.
    if (hasInfinity(patch)) {
      const overflowing = firstOverflowingLiteral(parseJsonKeepingNumbers(body.toString('utf8')));
      throw badRequest(`json: cannot unmarshal number ${overflowing} into Go value of type float64`);
    }
    return patch;
  },
  apply(current, patch) {
    const apiVersion = current.apiVersion ?? '';
    const slash = apiVersion.lastIndexOf('/');
    const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
    const version = apiVersion.slice(slash + 1);
    const found = definitionForKind({ group, version, kind: current.kind ?? '' });
    // Endpoints of kinds without a Go schema refuse the type before reading the body.
    if (found === undefined) throw new Error(`no Go schema for a strategic merge of ${apiVersion} ${current.kind}`);
    const schema = rootSchemaNode(schemaData().definitions as unknown as Definitions, found.name);
    try {
      return withTypeMetaOf(current, applyStrategicMergePatch(current, patch, schema));
    } catch (error) {
      if (!(error instanceof StrategicMergePatchError)) throw error;
      if (error.code === 400) throw badRequest(error.message);
      if (error.code === 422) throw cannotApply();
      // The reference lets the library's other complaints (an unknown $patch directive, a
      // list item without its merge key) through as 500s; they are faults of the patch.
      throw badRequest(error.message);
    }
  },
  shown: (patch) => goValue(patch),
  strictProblems: mergePatch.strictProblems,
  resultFromMap: true,
};

export interface PatchDocument {
  readonly document: unknown;
  /** What strict decoding of the document reports; none where fields go unvalidated. */
  readonly strictProblems: readonly string[];
}

/**
 * The patch document, read when first asked for: the reference reads it only once it holds the
 * object, so a patch of an object that does not exist is a 404 whatever its body. It is read
 * once, however often the write is retried.
 */
export function patchDocumentOf(
  patchType: PatchType,
  body: Buffer,
  options: { readonly fieldValidation: FieldValidation },
): () => PatchDocument {
  let read: PatchDocument | undefined;
  return () =>
    (read ??= {
      document: patchType.parse(body, options),
      strictProblems: options.fieldValidation === 'Ignore' ? [] : patchType.strictProblems(body),
    });
}

/** In the order the reference lists accepted types in its 415 message. */
export const PATCH_TYPES: ReadonlyMap<string, PatchType> = new Map([
  ['application/json-patch+json', jsonPatch],
  ['application/merge-patch+json', mergePatch],
  ['application/strategic-merge-patch+json', strategicMergePatch],
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

/** What the PATCH endpoints of a handler scope take; `cbor` the apply-patch+cbor gate. */
export function patchEndpointOf(scope: HandlerScope): PatchEndpoint {
  const { group, kind } = scope.type;
  return {
    cbor: (scope.context.representations ?? DEFAULT_REPRESENTATION_SETTINGS).cbor,
    strategic: definitionForKind({ group, version: scope.version.version, kind }) !== undefined,
  };
}

export interface PatchEndpoint {
  readonly cbor: boolean;
  /** The kind has a Go schema to merge strategically by; custom resources (and their subresources) do not. */
  readonly strategic: boolean;
}

/** Every PATCH type the endpoint takes, in the order of the reference's 415 message. */
export function acceptedPatchTypes(endpoint: PatchEndpoint): string[] {
  return [
    ...[...PATCH_TYPES.keys()].filter((type) => endpoint.strategic || PATCH_TYPES.get(type) !== strategicMergePatch),
    ...[...APPLY_PATCH_TYPES.keys()].filter((type) => applyBodyFormatOf(type, endpoint) !== undefined),
  ];
}

/**
 * What a PATCH request's `Content-Type` asks for. The reference's handler takes the header up
 * to its first `;` exactly as sent (an upper-case type is no patch type) and refuses a type the
 * endpoint does not take with 415 before it looks at anything else.
 */
export function patchRequestType(
  contentType: string | undefined,
  endpoint: PatchEndpoint,
): { readonly patchType?: PatchType; readonly applyFormat?: ApplyBodyFormat } {
  const header = contentType ?? '';
  const parameters = header.indexOf(';');
  const mediaType = parameters > 0 ? header.slice(0, parameters) : header;
  if (!acceptedPatchTypes(endpoint).includes(mediaType)) throw unsupportedMediaType(acceptedPatchTypes(endpoint));
  const patchType = PATCH_TYPES.get(mediaType);
  return patchType !== undefined ? { patchType } : { applyFormat: applyBodyFormatOf(mediaType, endpoint) };
}

/** The patch type or apply format the request's `Content-Type` names; a 415 drains the unread body. */
export function requestedPatchType(scope: HandlerScope, req: Request): ReturnType<typeof patchRequestType> {
  try {
    return patchRequestType(req.headers['content-type'], patchEndpointOf(scope));
  } catch (error) {
    req.resume();
    throw error;
  }
}
