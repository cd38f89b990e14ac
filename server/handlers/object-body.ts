/**
 * The HTTP side of a write's object: reading and decoding a body (or a patch's result) into an
 * object of the request's version, and checking it against the URL. What happens to it next
 * is the store's (server/registry/store/).
 */
import type { Request } from 'express';
import type { KubeObject } from '../../api/objects';
import { goQuote } from '../../api/go-quote';
import { readBody } from '../request/body';
import { parseMediaType, requestBodyFormat, serializersFor, type Format } from '../codec/media-type';
import { decodeObject } from '../codec/protobuf-envelope';
import { decodeCborBody } from '../codec/cbor';
import type { WriteOptions } from '../request/query';
import { badRequest, invalid, namespaceMismatch } from '../status/catalogue';
import { isObject } from '../json/value';
import { StatusError } from '../status/status-error';
import { FieldPath, invalid as invalidField } from '../status/field-errors';
import {
  decodeValue,
  NO_REPEATED_KEYS,
  parseBody,
  unrecognizedObject,
  type DecodedObject,
  type RepeatedKeys,
} from '../validation/decode';
import { managerFromUserAgent } from '../fieldmanager/managed-fields';
import { apiVersionOf } from '../registry/store/scope';
import type { HandlerScope } from './scope';
import type { WarningRecorder } from '../request/warning-recorder';

/** The Go package the reference converts into, for its "unknown conversion" text. */
function internalPackage(group: string): string {
  return group === '' ? 'core' : group.split('.')[0];
}

/**
 * The body's apiVersion and kind against the URL's: absent ones default to the URL's; another
 * kind, or a version this kind is not served in, is the reference's 400.
 */
function checkTypeMeta(scope: HandlerScope, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return; // typing reports it
  const record = value as Record<string, unknown>;
  const expectedVersion = apiVersionOf(scope);
  const apiVersion =
    typeof record.apiVersion === 'string' && record.apiVersion !== '' ? record.apiVersion : expectedVersion;
  const kind = typeof record.kind === 'string' && record.kind !== '' ? record.kind : scope.type.kind;
  const slash = apiVersion.lastIndexOf('/');
  const gv =
    slash >= 0
      ? { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) }
      : { group: '', version: apiVersion };
  if (kind === scope.type.kind && apiVersion === expectedVersion) return;
  const known = scope.context.registry.findKind({ ...gv, kind });
  const prefix = `${kind} in version ${goQuote(gv.version)} cannot be handled as a ${scope.type.kind}`;
  if (known === undefined) {
    throw badRequest(
      `${prefix}: no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme "pkg/runtime/scheme.go:110"`,
    );
  }
  if (known.group === scope.type.group && known.resource === scope.type.resource) {
    throw badRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (${expectedVersion})`,
    );
  }
  throw badRequest(
    `${prefix}: converting (${gv.version}.${kind}) to (${internalPackage(scope.type.group)}.${scope.type.kind}): unknown conversion`,
  );
}

/**
 * A custom resource is decoded unstructured, keeping the apiVersion and kind it names: a body
 * without a kind cannot be read at all (400), and the version it names must be the URL's (400).
 */
function checkCustomResourceBody(scope: HandlerScope, record: Record<string, unknown>, body: Buffer): void {
  if (typeof record.kind !== 'string' || record.kind === '')
    throw unrecognizedObject(scope.type.kind, `Object 'Kind' is missing in '${body.toString('utf8')}'`, body);
}

function checkCustomResourceVersion(scope: HandlerScope, record: Record<string, unknown>): void {
  const expected = apiVersionOf(scope);
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
function checkCustomResourceTypeMeta(scope: HandlerScope, record: Record<string, unknown>): void {
  const expected = apiVersionOf(scope);
  const kind = typeof record.kind === 'string' ? record.kind : '';
  const apiVersion = typeof record.apiVersion === 'string' ? record.apiVersion : '';
  const errors = [
    ...(kind === scope.type.kind ? [] : [invalidField(FieldPath.root('kind'), kind, `must be ${scope.type.kind}`)]),
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
 * patched object and the decoding error, where a body gets the 400 above.
 */
export function decodeParsed(
  scope: HandlerScope,
  patched: {
    readonly value: unknown;
    readonly duplicates: RepeatedKeys;
    readonly options: WriteOptions;
    readonly shownPatch: () => string;
    /** Where the decoding's warnings go when the result is then refused (custom resources). */
    readonly warnings: WarningRecorder;
  },
): DecodedObject {
  const { value, duplicates, options, shownPatch, warnings } = patched;
  try {
    if (!isCustomResource(scope)) checkTypeMeta(scope, value);
  } catch (error) {
    if (!(error instanceof StatusError)) throw error;
    throw invalid({ group: '', kind: '' }, '', [
      invalidField(FieldPath.root('patch'), shownPatch(), error.status.message ?? ''),
    ]);
  }
  return decodeTyped(scope, { value, duplicates, options, wholeBody: false, shownPatch, warnings });
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
  scope: HandlerScope,
  input: {
    value: unknown;
    duplicates: RepeatedKeys;
    options: WriteOptions;
    wholeBody: boolean;
    shownPatch?: () => string;
    /** The body as sent, for a whole body. */
    body?: Buffer;
    warnings: WarningRecorder;
  },
): DecodedObject {
  const { value, duplicates, options } = input;
  const custom = isCustomResource(scope) && isObject(value);
  if (!custom) checkTypeMeta(scope, value);
  else if (input.body !== undefined) checkCustomResourceBody(scope, value, input.body);
  // Custom resources are decoded unstructured and pruned by their schema.
  const prune = scope.type.prune?.bind(scope.type);
  const decoded = decodeValue(
    {
      definitions: scope.context.definitions,
      definition: scope.version.definition,
      expectedKind: scope.type.kind,
      servedVersion: scope.version.version,
      fieldValidation: options.fieldValidation,
      wholeBody: input.wholeBody,
      shownPatch: input.shownPatch,
      ...(prune ? { prune: (object: KubeObject) => pruneAsNamed(scope, object, prune) } : {}),
    },
    value,
    duplicates,
  );
  const object = decoded.object;
  if (custom) {
    try {
      if (input.wholeBody) checkCustomResourceVersion(scope, object);
      checkCustomResourceTypeMeta(scope, object);
    } catch (error) {
      // The reference warns of the decoding's unknown fields before it refuses the object.
      for (const warning of decoded.warnings) input.warnings.add(warning);
      throw error;
    }
  }
  object.apiVersion = apiVersionOf(scope);
  object.kind = scope.type.kind;
  if (typeof object.metadata !== 'object' || object.metadata === null) object.metadata = {};
  return decoded;
}

/**
 * The format of a full-object body (POST, PUT) by its `Content-Type`: JSON, YAML, protobuf,
 * CBOR behind its gate. Anything else is a 415, and the unread body is drained.
 */
export function objectBodyFormat(scope: HandlerScope, req: Request): Format {
  try {
    return requestBodyFormat({
      contentType: req.headers['content-type'],
      serializers: serializersFor({
        protobuf: scope.type.protobuf !== false,
        cbor: scope.context.representations?.cbor ?? false,
      }),
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
): Promise<DecodedObject> {
  const format = objectBodyFormat(scope, req);
  const { value, duplicates, body } = await readObjectValue(req, format, {
    expectedKind: scope.type.kind,
    findDuplicates: options.fieldValidation !== 'Ignore',
  });
  return decodeTyped(scope, { value, duplicates, options, wholeBody: true, body, warnings: req.warnings });
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

/** Custom resources are decoded unstructured (see ResourceType.prune). */
function isCustomResource(scope: HandlerScope): boolean {
  return scope.type.prune !== undefined;
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
