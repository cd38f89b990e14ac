/**
 * The HTTP side of a write's object: reading and decoding a body (or a patch's result) into an
 * object of the request's version, and checking it against the URL. What happens to it next
 * is the store's (server/registry/store/).
 */
import type { Request } from 'express';
import type { KubeObject } from '../../api/objects';
import type { GroupVersionKind } from '../../api/identity';
import { goQuote } from '../../api/go-quote';
import { readBody } from '../request/body';
import { parseMediaType, requestBodyFormat, serializersFor, type Format } from '../codec/media-type';
import { decodeObject } from '../codec/protobuf-envelope';
import { decodeCborBody } from '../codec/cbor';
import type { WriteOptions } from '../request/query';
import type { RequestInfo } from '../request/request-info';
import { badRequest, invalid, namespaceMismatch } from '../status/catalogue';
import { FieldPath, invalid as invalidField } from '../status/field-errors';
import {
  decodeValue,
  NO_REPEATED_KEYS,
  parseBody,
  typeMetaReadError,
  unrecognizedObject,
  type DecodedObject,
  type Definitions,
  type RepeatedKeys,
} from '../validation/decode';
import { isObject } from '../json/value';
import { REGISTERED_GROUP_VERSIONS } from '../config/registered-group-versions';
import { definitionForKind } from '../schema/definitions';
import type { WarningRecorder } from '../request/warning-recorder';
import { managerFromUserAgent } from '../fieldmanager/managed-fields';
import type { WriteTarget } from '../registry/store/update';
import type { HandlerScope } from './scope';

/** The Go package the reference converts into, for its "unknown conversion" text. */
function internalPackage(group: string): string {
  return group === '' ? 'core' : group.split('.')[0];
}

/** How the reference's scheme knows a body's apiVersion and kind, beside the expected pair. */
export type KnownAs = 'accepted' | 'another version' | 'another kind';

/**
 * The kind a body must be of: an endpoint's own kind, or the fixed kind a subresource takes (an
 * autoscaling/v1 Scale, a policy/v1 Eviction), whatever resource it is under.
 */
export interface BodyKind {
  readonly definitions?: Definitions;
  /** OpenAPI definition of the kind in `apiVersion`. */
  readonly definition: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** How the scheme knows another apiVersion and kind; undefined when it is not registered. */
  readonly knownAs: (gvk: GroupVersionKind) => KnownAs | undefined;
  /**
   * Custom resources are decoded unstructured and pruned by their schema, keeping the apiVersion
   * and kind they name, which are then checked (see decodeTyped).
   */
  readonly prune?: (object: KubeObject) => string[];
  /**
   * The write keeps only the object's status: a custom resource's status strategy copies the
   * rest, apiVersion and kind included, from the stored object, so the reference never checks
   * those the body or patch names (a body's version must still be the URL's), and they stay
   * as named: a refusal of the write names them.
   */
  readonly statusOnly?: boolean;
}

/** An endpoint's own kind: known as the kinds its registry serves. */
export function endpointBodyKind(scope: HandlerScope, target: WriteTarget = 'main'): BodyKind {
  const prune = scope.type.prune?.bind(scope.type);
  return {
    ...(target === 'status' ? { statusOnly: true } : {}),
    definitions: scope.context.definitions,
    definition: scope.version.definition,
    group: scope.type.group,
    version: scope.version.version,
    kind: scope.type.kind,
    knownAs: (gvk) => {
      const known = scope.context.registry.findKind(gvk);
      if (known !== undefined)
        return known.group === scope.type.group && known.resource === scope.type.resource
          ? 'another version'
          : 'another kind';
      if (scope.type.prune !== undefined || !schemeRegisters(gvk)) return undefined;
      // A version the scheme registers and the server does not serve: the kind's own Go type
      // when it names the kind in its group, or in `extensions`, the old home of the apps and
      // networking kinds.
      return gvk.kind === scope.type.kind && (gvk.group === scope.type.group || gvk.group === 'extensions')
        ? 'another version'
        : 'another kind';
    },
    ...(prune ? { prune: (object: KubeObject) => pruneAsNamed(scope, object, prune) } : {}),
  };
}

/**
 * The built-in kind a subresource takes (an autoscaling/v1 Scale, a policy/v1 Eviction), whatever
 * resource it is under: known in the other versions the scheme registers it in, which the
 * endpoint reads as its own (`accepted`) or refuses as another version (`refused`).
 */
export function subresourceBodyKind(
  scope: HandlerScope,
  body: {
    readonly definition: string;
    readonly group: string;
    readonly version: string;
    readonly kind: string;
    readonly accepted?: readonly string[];
    readonly refused?: readonly string[];
  },
): BodyKind {
  const { accepted = [], refused = [], ...expected } = body;
  return {
    ...expected,
    definitions: scope.context.definitions,
    knownAs: (gvk) => {
      const apiVersion = gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
      if (gvk.kind === expected.kind && accepted.includes(apiVersion)) return 'accepted';
      if (gvk.kind === expected.kind && refused.includes(apiVersion)) return 'another version';
      return scope.context.registry.findKind(gvk) === undefined ? undefined : 'another kind';
    },
  };
}

/**
 * Whether the reference's scheme registers the kind: a group version of its built-in groups,
 * served or not, that k8s.io/api defines the kind in, or that every group version holds (the
 * meta kinds: DeleteOptions, WatchEvent, ...).
 */
function schemeRegisters(gvk: GroupVersionKind): boolean {
  if (!REGISTERED_GROUP_VERSIONS.some(({ group, version }) => group === gvk.group && version === gvk.version))
    return false;
  return definitionForKind(gvk) !== undefined;
}

function apiVersionOfKind(kind: BodyKind): string {
  return kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
}

/**
 * The body's apiVersion and kind against the expected ones: absent ones default to those; another
 * kind, or a version the endpoint does not accept, is the reference's 400. `detail` is the
 * decoder's own error, which a body's 400 puts after `handledAs` and a patch's 422 shows alone.
 */
function typeMetaProblem(expected: BodyKind, value: unknown): { detail: string; handledAs?: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined; // typing reports it
  const record = value as Record<string, unknown>;
  const expectedVersion = apiVersionOfKind(expected);
  const apiVersion =
    typeof record.apiVersion === 'string' && record.apiVersion !== '' ? record.apiVersion : expectedVersion;
  const kind = typeof record.kind === 'string' && record.kind !== '' ? record.kind : expected.kind;
  const slash = apiVersion.lastIndexOf('/');
  const gv =
    slash >= 0
      ? { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) }
      : { group: '', version: apiVersion };
  if (kind === expected.kind && apiVersion === expectedVersion) return undefined;
  const known = expected.knownAs({ ...gv, kind });
  if (known === 'accepted') return undefined;
  // The version check follows a decode that succeeded: nothing to prefix.
  if (known === 'another version')
    return {
      detail: `the API version in the data (${apiVersion}) does not match the expected API version (${expectedVersion})`,
    };
  const handledAs = `${kind} in version ${goQuote(gv.version)} cannot be handled as a ${expected.kind}`;
  if (known === undefined)
    return {
      handledAs,
      detail: `no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme "pkg/runtime/scheme.go:110"`,
    };
  return {
    handledAs,
    detail: `converting (${gv.version}.${kind}) to (${internalPackage(expected.group)}.${expected.kind}): unknown conversion`,
  };
}

function checkTypeMeta(expected: BodyKind, value: unknown): void {
  const problem = typeMetaProblem(expected, value);
  if (problem === undefined) return;
  throw badRequest(problem.handledAs === undefined ? problem.detail : `${problem.handledAs}: ${problem.detail}`);
}

/**
 * A custom resource is decoded unstructured, keeping the apiVersion and kind it names: a body
 * without a kind cannot be read at all (400), nor one whose apiVersion is null, which the
 * unstructured object's accessor refuses (400), and the version it names must be the URL's (400).
 */
function checkCustomResourceBody(expected: BodyKind, record: Record<string, unknown>, body: Buffer): void {
  if (typeof record.kind !== 'string' || record.kind === '')
    throw unrecognizedObject(expected.kind, `Object 'Kind' is missing in '${body.toString('utf8')}'`, body);
  if ('apiVersion' in record && record.apiVersion === null)
    throw badRequest(
      `${record.kind} in version "" cannot be handled as a ${expected.kind}: .apiVersion accessor error: <nil> is of the type <nil>, expected string`,
    );
}

function checkCustomResourceVersion(kind: BodyKind, record: Record<string, unknown>): void {
  const expected = apiVersionOfKind(kind);
  const apiVersion = typeof record.apiVersion === 'string' ? record.apiVersion : '';
  if (apiVersion !== expected)
    throw badRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (${expected})`,
    );
}

/**
 * What the reference's custom resource validation checks first and alone: the decoded object's
 * kind and apiVersion, as 422 naming the kind the object claims. A body reaches it with another
 * kind of the URL's version; a patch may have changed either. (The reference checks it after
 * mutating admission, which cannot change what a request sent before it here.)
 */
function checkCustomResourceTypeMeta(expectedKind: BodyKind, record: Record<string, unknown>): void {
  const expected = apiVersionOfKind(expectedKind);
  const kind = typeof record.kind === 'string' ? record.kind : '';
  const apiVersion = typeof record.apiVersion === 'string' ? record.apiVersion : '';
  const errors = [
    ...(kind === expectedKind.kind ? [] : [invalidField(FieldPath.root('kind'), kind, `must be ${expectedKind.kind}`)]),
    ...(apiVersion === expected ? [] : [invalidField(FieldPath.root('apiVersion'), apiVersion, `must be ${expected}`)]),
  ];
  if (errors.length === 0) return;
  const metadata = record.metadata as { name?: unknown } | undefined;
  const name = typeof metadata?.name === 'string' ? metadata.name : '';
  const slash = apiVersion.lastIndexOf('/');
  throw invalid({ group: slash < 0 ? '' : apiVersion.slice(0, slash), kind }, name, errors);
}

/**
 * Decodes a patch's result; decodeObjectBody decodes a request body. A result of another kind
 * or version is the patch's fault: the reference answers 422 on the `patch` field, with the
 * patched object and the decoder's own error, where a body gets the 400 above.
 */
export function decodeParsed(scope: HandlerScope, patched: PatchedValue, target?: WriteTarget): DecodedObject {
  return decodeParsedOfKind(endpointBodyKind(scope, target), patched);
}

interface PatchedValue {
  readonly value: unknown;
  readonly duplicates: RepeatedKeys;
  /** What strict decoding of the patch document reported, ahead of the result's problems. */
  readonly patchProblems?: readonly string[];
  readonly options: WriteOptions;
  readonly shownPatch: () => string;
  /** Where the decoding's warnings go when the result is then refused (custom resources). */
  readonly warnings?: WarningRecorder;
  /** A strategic merge's result, converted from its map (decode.ts's fromMap). */
  readonly fromMap?: boolean;
}

/** decodeParsed for a patch's result that must be of the expected kind. */
export function decodeParsedOfKind(expected: BodyKind, patched: PatchedValue): DecodedObject {
  const { value, shownPatch } = patched;
  // A JSON or merge patch's result is decoded as a body is, its type meta read first; a
  // strategic one is converted from its map, where nothing reads it so.
  const typeMetaError = patched.fromMap ? undefined : typeMetaReadError(value);
  if (typeMetaError !== undefined)
    throw invalid({ group: '', kind: '' }, '', [invalidField(FieldPath.root('patch'), shownPatch(), typeMetaError)]);
  // A custom resource's type meta is checked after its decoding (decodeTyped).
  const problem = expected.prune === undefined ? typeMetaProblem(expected, value) : undefined;
  if (problem !== undefined)
    throw invalid({ group: '', kind: '' }, '', [invalidField(FieldPath.root('patch'), shownPatch(), problem.detail)]);
  return decodeTyped(expected, { ...patched, wholeBody: false });
}

/**
 * A patch that removes the type meta changes how the reference decodes its result. A built-in
 * kind's result without an apiVersion is decoded into the internal Go type, which reads the
 * object's metadata from the top level, not from `metadata`: without a top-level `name` the
 * name check after it fails. A custom resource's unstructured result needs a kind (a 422 on the
 * patch) and an apiVersion (the reference fails with a 500 there; the same 422 here).
 */
export function checkPatchedTypeMeta(
  scope: HandlerScope,
  value: unknown,
  { name, shownPatch }: { readonly name: string; readonly shownPatch: () => string },
): void {
  if (!isObject(value)) return;
  const absent = (member: 'apiVersion' | 'kind') =>
    value[member] === undefined || value[member] === null || value[member] === '';
  if (scope.type.prune === undefined) {
    if (absent('apiVersion'))
      checkName({ metadata: { name: typeof value.name === 'string' ? value.name : undefined } }, name);
    return;
  }
  for (const member of ['kind', 'apiVersion'] as const) {
    if (!absent(member)) continue;
    const shown = shownPatch();
    throw invalid({ group: '', kind: '' }, '', [
      invalidField(
        FieldPath.root('patch'),
        shown,
        `Object '${member === 'kind' ? 'Kind' : member}' is missing in '${shown}'`,
      ),
    ]);
  }
}

function decodeTyped(
  expected: BodyKind,
  input: {
    value: unknown;
    duplicates: RepeatedKeys;
    patchProblems?: readonly string[];
    options: WriteOptions;
    wholeBody: boolean;
    shownPatch?: () => string;
    /** The body as sent, for a whole body. */
    body?: Buffer;
    warnings?: WarningRecorder;
    fromMap?: boolean;
  },
): DecodedObject {
  const { value, duplicates, options } = input;
  const custom = expected.prune !== undefined && isObject(value);
  if (!custom) checkTypeMeta(expected, value);
  else if (input.body !== undefined) checkCustomResourceBody(expected, value, input.body);
  const decoded = decodeValue(
    {
      definitions: expected.definitions,
      definition: expected.definition,
      expectedKind: expected.kind,
      servedVersion: expected.version,
      fieldValidation: options.fieldValidation,
      wholeBody: input.wholeBody,
      shownPatch: input.shownPatch,
      patchProblems: input.patchProblems,
      fromMap: input.fromMap,
      ...(expected.prune ? { prune: expected.prune } : {}),
    },
    value,
    duplicates,
  );
  const object = decoded.object;
  if (custom) {
    try {
      if (input.wholeBody) checkCustomResourceVersion(expected, object);
      if (!expected.statusOnly) checkCustomResourceTypeMeta(expected, object);
    } catch (error) {
      // The reference warns of the decoding's unknown fields before it refuses the object.
      for (const warning of decoded.warnings) input.warnings?.add(warning);
      throw error;
    }
  }
  if (!(custom && expected.statusOnly)) {
    object.apiVersion = apiVersionOfKind(expected);
    object.kind = expected.kind;
  }
  if (typeof object.metadata !== 'object' || object.metadata === null) object.metadata = {};
  return decoded;
}

/**
 * The format of a full-object body (POST, PUT) by its `Content-Type`: JSON, YAML, protobuf
 * (where the kind has it: a subresource's built-in kind does under a custom resource), CBOR
 * behind its gate. Anything else is a 415, and the unread body is drained; the 415 names
 * protobuf even where it is refused, as the reference's custom resource handler does.
 */
export function objectBodyFormat(scope: HandlerScope, req: Request, protobuf = scope.type.protobuf !== false): Format {
  const cbor = scope.context.representations?.cbor ?? false;
  try {
    return requestBodyFormat({
      contentType: req.headers['content-type'],
      serializers: serializersFor({ protobuf, cbor }),
      named: serializersFor({ protobuf: true, cbor }),
    });
  } catch (error) {
    req.resume();
    throw error;
  }
}

/** Reads a full-object body of a known format into a plain value, and the fields JSON or YAML repeated. */
export async function readObjectValue(
  req: Request,
  format: Format,
  options: { expectedKind: string; findDuplicates: boolean },
): Promise<{ value: unknown; duplicates: RepeatedKeys; body: Buffer }> {
  const body = await readBody(req);
  if (format === 'protobuf') return { value: decodeObject(body), duplicates: NO_REPEATED_KEYS, body };
  if (format === 'cbor') return { value: decodeCborBody(body), duplicates: NO_REPEATED_KEYS, body };
  const parsed = parseBody({
    body,
    format,
    expectedKind: options.expectedKind,
    findDuplicates: options.findDuplicates,
  });
  return { value: parsed.value, duplicates: parsed.repeatedKeys, body };
}

/** Reads and decodes a POST/PUT body into an object of the request's version. */
export async function decodeObjectBody(
  scope: HandlerScope,
  req: Request,
  options: WriteOptions,
  target?: WriteTarget,
): Promise<DecodedObject> {
  return await decodeBodyOfKind(req, objectBodyFormat(scope, req), endpointBodyKind(scope, target), options);
}

/** Reads and decodes a POST/PUT body of a known format into an object of the expected kind. */
export async function decodeBodyOfKind(
  req: Request,
  format: Format,
  expected: BodyKind,
  options: WriteOptions,
): Promise<DecodedObject> {
  const { value, duplicates, body } = await readObjectValue(req, format, {
    expectedKind: expected.kind,
    findDuplicates: options.fieldValidation !== 'Ignore',
  });
  return decodeTyped(expected, { value, duplicates, options, wholeBody: true, body, warnings: req.warnings });
}

/**
 * The reference prunes a custom resource by the schema of the version the object names (a
 * version the kind lacks has no schema, so only apiVersion, kind and metadata stay), and not at
 * all when it names another group or kind: what is left is refused for that anyway.
 */
function pruneAsNamed(
  scope: HandlerScope,
  object: KubeObject,
  prune: (object: KubeObject, version: string) => string[],
): string[] {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  if (group !== scope.type.group || object.kind !== scope.type.kind) return [];
  return prune(object, apiVersion.slice(slash + 1));
}

/** The media type a request's `Content-Type` names, without parameters; '' when absent or malformed. */
export function contentMediaType(req: Request): string {
  const parsed = parseMediaType(req.headers['content-type'] ?? '');
  return parsed === undefined ? '' : `${parsed.type}/${parsed.subtype}`;
}

/** The URL's namespace wins when the body has none; a different one is the reference's 400. */
export function checkNamespace(scope: HandlerScope, object: KubeObject, namespace: string): void {
  if (!scope.type.namespaced) {
    // The reference clears a namespace sent for a cluster-scoped kind.
    delete object.metadata.namespace;
    return;
  }
  const sent = object.metadata.namespace;
  if (sent !== undefined && sent !== '' && sent !== namespace) {
    throw namespaceMismatch();
  }
  object.metadata.namespace = namespace;
}

/**
 * An update or patch names its object in the URL: without one (a custom resource's collection,
 * whose handler serves by verb) it is refused before its body is read, as the reference's
 * handlers refuse it.
 */
export function requireNameInUrl(info: RequestInfo): void {
  if (info.name === '') throw badRequest('name must be provided');
}

/** The object names the URL's object: a body without a name is the reference's 400 too. */
export function checkName(object: KubeObject, name: string): void {
  const sent = object.metadata.name;
  if (sent === undefined || sent === '')
    throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  if (sent !== name) throw badRequest(`the name of the object (${sent}) does not match the name on the URL (${name})`);
}

export function fieldManagerOf(req: Request, options: WriteOptions): string {
  // An empty fieldManager is no manager, as in the reference.
  return options.fieldManager || managerFromUserAgent(req.headers['user-agent']);
}
