/**
 * Query parameters of resource requests, parsed and checked with the reference's rules and
 * texts: conversion failures are 400 BadRequest, rule violations are 422 Invalid on the
 * options kind (`ListOptions.meta.k8s.io "" is invalid: ...`).
 */
import type { IncomingMessage } from 'node:http';
import type { Preconditions, ResourceVersionMatch } from '../../storage/objects/types';
import { decodeGoBytes, goBytesOf, strayByteCharacter, strayByteOf, wellFormed } from '../../api/go-bytes';
import { goIsPrint, goJSONQuote, goQuote } from '../../api/go-quote';
import { GO_TYPE_META_STRUCT, goJSONSyntaxError, goTypeOf } from '../../api/go-json-syntax';
import { badRequest, invalid } from '../status/catalogue';
import type { FieldError } from '../status/field-error';
import {
  FieldPath,
  GoValue,
  forbidden as forbiddenField,
  invalid as invalidField,
  notSupported,
  required as requiredField,
  tooLong,
} from '../status/field-errors';

/** What handlers read of a query: the parameters by name, as Go's url.Values gives them. */
export interface QueryParameters {
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string): boolean;
}

/**
 * A query's parameters in the order sent, with their stray bytes kept (a URLSearchParams would
 * make each a U+FFFD, which messages then print unlike the reference).
 */
class GoQueryParameters implements QueryParameters {
  private readonly pairs: (readonly [string, string])[] = [];

  append(name: string, value: string): void {
    this.pairs.push([name, value]);
  }

  get(name: string): string | null {
    return this.pairs.find(([key]) => key === name)?.[1] ?? null;
  }

  getAll(name: string): string[] {
    return this.pairs.filter(([key]) => key === name).map(([, value]) => value);
  }

  has(name: string): boolean {
    return this.pairs.some(([key]) => key === name);
  }
}

/**
 * The query as Go's url.ParseQuery reads it: a pair whose escapes do not decode (`%zz`) or
 * that holds a semicolon is skipped, and the rest stand, as the reference's handlers see them.
 */
export function queryOf(req: IncomingMessage): QueryParameters {
  const url = req.url ?? '/';
  const start = url.indexOf('?');
  if (start < 0) return NO_PARAMETERS;
  // Several stages of a request read its query, and clients repeat theirs: the parameters are
  // read-only, so the last query's are kept and shared.
  const query = url.slice(start + 1);
  if (query !== lastQuery) {
    lastParameters = parseQuery(query);
    lastQuery = query;
  }
  return lastParameters;
}

const NO_PARAMETERS: QueryParameters = new GoQueryParameters();
let lastQuery = '';
let lastParameters: QueryParameters = NO_PARAMETERS;

function parseQuery(query: string): QueryParameters {
  const params = new GoQueryParameters();
  for (const pair of query.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const equals = pair.indexOf('=');
    const key = queryUnescape(equals < 0 ? pair : pair.slice(0, equals));
    const value = queryUnescape(equals < 0 ? '' : pair.slice(equals + 1));
    if (key === undefined || value === undefined) continue;
    params.append(key, value);
  }
  return params;
}

/** Go's url.QueryUnescape: `+` is a space, and every `%` must start two hex digits. */
function queryUnescape(text: string): string | undefined {
  return percentUnescape(text.includes('+') ? text.replace(/\+/g, ' ') : text);
}

/**
 * Go's unescaping of a path or a query component: undefined when a `%` does not start two hex
 * digits. Escapes that are not UTF-8 stay bytes in Go, held here as stray-byte characters
 * (api/go-bytes.ts), which messages print as the reference does.
 */
export function percentUnescape(text: string): string | undefined {
  if (!text.includes('%')) return text;
  if (/%(?![0-9a-fA-F]{2})/.test(text)) return undefined;
  try {
    return decodeURIComponent(text);
  } catch {
    const bytes = Buffer.from(
      text.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    );
    return decodeGoBytes(bytes, strayByteCharacter);
  }
}

/**
 * The reference's conversion of a query parameter to a bool: "0", "f", "false", "n" and "no"
 * (any case) are false and any other value, the empty one too, is true.
 */
export function parseBool(text: string): boolean {
  return !['0', 'f', 'false', 'n', 'no'].includes(text.toLowerCase());
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(text, 10, 64), with its error texts. */
export function parseInteger(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX)
    throw badRequest(`strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
  return Number(value);
}

function optionalBool(query: QueryParameters, name: string): boolean | undefined {
  const text = query.get(name);
  return text === null ? undefined : parseBool(text);
}

/** An integer parameter; present but empty is Go's parse error, as the reference answers it. */
function optionalInteger(query: QueryParameters, name: string): number | undefined {
  const text = query.get(name);
  return text === null ? undefined : parseInteger(text);
}

const META_GROUP = 'meta.k8s.io';

function rejectIfAny(kind: string, errors: readonly FieldError[]): void {
  if (errors.length > 0) throw invalid({ group: META_GROUP, kind }, '', errors);
}

// ---- writes ------------------------------------------------------------------------------

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  readonly dryRun: boolean;
  readonly fieldValidation: FieldValidation;
  /** As given; the handler falls back to the User-Agent's program name. */
  readonly fieldManager?: string;
  readonly force?: boolean;
}

const FIELD_MANAGER_MAX_BYTES = 128;

function dryRunErrors(values: readonly string[]): FieldError[] {
  const unsupported = values.filter((value) => value !== 'All');
  if (unsupported.length === 0) return [];
  return [notSupported(FieldPath.root('dryRun'), values, ['All'])];
}

/**
 * The reference's checks of a fieldManager: its length in bytes, and one error for each
 * character Go's unicode.IsPrint refuses, at its byte offset.
 */
function fieldManagerErrors(fieldManager: string | undefined, required: boolean): FieldError[] {
  if (fieldManager === undefined || fieldManager === '') {
    return required ? [requiredField(FieldPath.root('fieldManager'), 'is required for apply patch')] : [];
  }
  const path = FieldPath.root('fieldManager');
  const errors: FieldError[] = [];
  if (goBytesOf(fieldManager).length > FIELD_MANAGER_MAX_BYTES) errors.push(tooLong(path, FIELD_MANAGER_MAX_BYTES));
  let offset = 0;
  for (const character of fieldManager) {
    // Go ranges over a stray byte as one byte of U+FFFD, which is printable.
    const stray = strayByteOf(character.codePointAt(0)!) !== undefined;
    const code = stray ? 0xfffd : character.codePointAt(0)!;
    if (!goIsPrint(code)) {
      const unicode = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
      errors.push(invalidField(path, fieldManager, `invalid character ${unicode} (at position ${offset})`));
    }
    offset += stray ? 1 : Buffer.byteLength(character);
  }
  return errors;
}

const FIELD_VALIDATION_VALUES: readonly FieldValidation[] = ['Ignore', 'Warn', 'Strict'];

/**
 * What a write's options are checked as: a create, an update, or a patch, which is either
 * server-side apply (fieldManager required, `force` allowed) or any other patch (`force`
 * refused, even `force=false`).
 */
export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'ApplyPatchOptions' | 'PatchOptions';

/** The options checked in the reference's order: force or a required fieldManager, fieldManager, dryRun, fieldValidation. */
export function parseWriteOptions(query: QueryParameters, kind: WriteOptionsKind): WriteOptions {
  const dryRun = query.getAll('dryRun');
  const fieldValidation = query.get('fieldValidation') ?? '';
  const fieldManager = query.get('fieldManager') ?? undefined;
  const force = kind === 'ApplyPatchOptions' || kind === 'PatchOptions' ? optionalBool(query, 'force') : undefined;
  const errors: FieldError[] = [];
  if (kind === 'PatchOptions' && force !== undefined)
    errors.push(forbiddenField(FieldPath.root('force'), 'may not be specified for non-apply patch'));
  errors.push(...fieldManagerErrors(fieldManager, kind === 'ApplyPatchOptions'), ...dryRunErrors(dryRun));
  if (fieldValidation !== '' && !FIELD_VALIDATION_VALUES.includes(fieldValidation as FieldValidation)) {
    // A plain string in the reference, so `%q`, where notSupported prints a named string type as JSON.
    const shown = new GoValue(goQuote(fieldValidation));
    errors.push(notSupported(FieldPath.root('fieldValidation'), shown, ['', 'Ignore', 'Strict', 'Warn']));
  }
  rejectIfAny(kind === 'ApplyPatchOptions' ? 'PatchOptions' : kind, errors);
  return {
    dryRun: dryRun.includes('All'),
    fieldValidation: fieldValidation === '' ? 'Warn' : (fieldValidation as FieldValidation),
    // Stored in managedFields, where the reference's JSON shows a stray byte as U+FFFD.
    fieldManager: fieldManager === undefined ? undefined : wellFormed(fieldManager),
    force: kind === 'ApplyPatchOptions' ? force : undefined,
  };
}

// ---- reads -------------------------------------------------------------------------------

export interface ListQuery {
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: ResourceVersionMatch;
  readonly limit?: number;
  readonly continue?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly allowWatchBookmarks: boolean;
  readonly sendInitialEvents?: boolean;
  readonly timeoutSeconds?: number;
}

function forbidden(field: string, detail: string): FieldError {
  return forbiddenField(FieldPath.root(field), detail);
}

/**
 * The list options of a list, watch or deletecollection, defaulted and checked as the reference
 * does. Its rules follow the `watch` query parameter alone: a watch asked for by the legacy
 * `/watch/` path without it is checked with a list's rules and not defaulted, as in the reference.
 *
 * `watchList` is the WatchList gate. On, a watch that asks for no version (or "0") and says
 * nothing of initial events is a watch list: it gets the state, and with bookmarks allowed the
 * bookmark that ends it. Off, a watch may not ask for initial events at all.
 */
export function parseListQuery(query: QueryParameters, { watchList }: { readonly watchList: boolean }): ListQuery {
  const watch = isWatchQuery(query);
  const resourceVersion = query.get('resourceVersion') ?? undefined;
  const askedMatch = query.get('resourceVersionMatch') ?? '';
  let match = askedMatch;
  const continueToken = query.get('continue') ?? undefined;
  let sendInitialEvents = optionalBool(query, 'sendInitialEvents');
  const limit = optionalInteger(query, 'limit');
  const timeoutSeconds = optionalInteger(query, 'timeoutSeconds');
  const legacyStart = !resourceVersion || resourceVersion === '0';
  if (watchList && watch && legacyStart && sendInitialEvents === undefined && match === '') {
    sendInitialEvents = true;
    match = 'NotOlderThan';
  }
  const errors: FieldError[] = [];
  if (watch) {
    if (sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan')
        errors.push(
          forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
        );
      if (!watchList)
        errors.push(
          forbidden(
            'sendInitialEvents',
            'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          ),
        );
    }
    if (match !== '') {
      if (sendInitialEvents === undefined) {
        errors.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          ),
        );
      }
      if (match !== 'NotOlderThan') {
        errors.push(notSupported(FieldPath.root('resourceVersionMatch'), match, ['NotOlderThan']));
      }
      if (continueToken)
        errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match !== '') {
      if (!resourceVersion)
        errors.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'),
        );
      if (continueToken)
        errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') {
        errors.push(notSupported(FieldPath.root('resourceVersionMatch'), match, ['Exact', 'NotOlderThan', '']));
      }
      if (match === 'Exact' && resourceVersion === '0') {
        errors.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
        );
      }
    }
    if (sendInitialEvents !== undefined)
      errors.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  rejectIfAny('ListOptions', errors);
  return {
    resourceVersion,
    // As asked: the match a watch list is defaulted to serves its checks alone. A watch does not
    // read it, and a deletecollection's list (`watch=true` is taken there too) reads no match
    // without a version in the reference, where capstan's store would refuse one.
    resourceVersionMatch: askedMatch === '' ? undefined : (askedMatch as ResourceVersionMatch),
    limit: limit !== undefined && limit > 0 ? limit : undefined,
    continue: continueToken || undefined,
    labelSelector: query.get('labelSelector') ?? undefined,
    fieldSelector: query.get('fieldSelector') ?? undefined,
    allowWatchBookmarks: optionalBool(query, 'allowWatchBookmarks') ?? false,
    sendInitialEvents,
    timeoutSeconds,
  };
}

/** Whether the query turns a GET into a watch (`watch=1`, `watch=true`...). */
export function isWatchQuery(query: QueryParameters): boolean {
  const text = query.get('watch');
  return text !== null && parseBool(text);
}

// ---- deletes -----------------------------------------------------------------------------

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteRequestOptions {
  readonly dryRun: boolean;
  readonly preconditions?: Preconditions;
  readonly propagationPolicy?: PropagationPolicy;
  readonly orphanDependents?: boolean;
  readonly gracePeriodSeconds?: number;
  /** Force the removal of an object whose stored bytes do not decode (feature AllowUnsafeMalformedObjectDeletion). */
  readonly ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

/** The fields of a DeleteOptions body this server reads. */
interface DeleteOptionsBody {
  dryRun?: unknown;
  preconditions?: { uid?: unknown; resourceVersion?: unknown } | null;
  propagationPolicy?: unknown;
  orphanDependents?: unknown;
  gracePeriodSeconds?: unknown;
  ignoreStoreReadErrorWithClusterBreakingPotential?: unknown;
}

export interface DeleteOptionsFeatures {
  /** The feature gate AllowUnsafeMalformedObjectDeletion; off, the unsafe option is dropped unread. */
  readonly allowUnsafeMalformedObjectDeletion?: boolean;
}

const IGNORE_READ_ERROR = 'ignoreStoreReadErrorWithClusterBreakingPotential';

/** Each DeleteOptions field this server reads, and the Go type the reference decodes it into (null is nil). */
const DELETE_OPTION_TYPES: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  dryRun: (value) =>
    !Array.isArray(value)
      ? mistyped(value, 'dryRun', '[]string')
      : value
          .map((item) => (item === null || typeof item === 'string' ? undefined : mistyped(item, 'dryRun', 'string')))
          .find(Boolean),
  propagationPolicy: (value) =>
    typeof value === 'string' ? undefined : mistyped(value, 'propagationPolicy', 'v1.DeletionPropagation'),
  orphanDependents: (value) => (typeof value === 'boolean' ? undefined : mistyped(value, 'orphanDependents', 'bool')),
  gracePeriodSeconds: (value) =>
    Number.isSafeInteger(value) ? undefined : mistyped(value, 'gracePeriodSeconds', 'int64'),
  [IGNORE_READ_ERROR]: (value) => (typeof value === 'boolean' ? undefined : mistyped(value, IGNORE_READ_ERROR, 'bool')),
  preconditions: (value) => {
    if (typeof value !== 'object' || Array.isArray(value)) return mistyped(value, 'preconditions', 'v1.Preconditions');
    const { uid, resourceVersion } = value as { uid?: unknown; resourceVersion?: unknown };
    if (uid !== undefined && uid !== null && typeof uid !== 'string')
      return mistyped(uid, 'preconditions.uid', 'types.UID');
    if (resourceVersion !== undefined && resourceVersion !== null && typeof resourceVersion !== 'string')
      return mistyped(resourceVersion, 'preconditions.resourceVersion', 'string');
    return undefined;
  },
};

/** Go's words for a value it cannot decode into a DeleteOptions field: a number that is no int64 is quoted. */
function mistyped(value: unknown, field: string, goType: string): string {
  const what = typeof value === 'number' && goType === 'int64' ? `number ${String(value)}` : goTypeOf(value);
  return `json: cannot unmarshal ${what} into Go struct field DeleteOptions.${field} of type ${goType}`;
}

/**
 * The first field of a DeleteOptions body, in its order, that the reference cannot decode; it
 * then deletes nothing, so neither may this server go on with the field's value unread (a
 * `dryRun` sent as a string would otherwise delete for real).
 */
function mistypedDeleteOption(body: object): string | undefined {
  for (const [field, value] of Object.entries(body)) {
    if (value === null || !Object.hasOwn(DELETE_OPTION_TYPES, field)) continue;
    const problem = DELETE_OPTION_TYPES[field](value);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Query parameters first, then a DeleteOptions body (when one was sent) over them, as the reference does. */
export function parseDeleteOptions(
  query: QueryParameters,
  body: Buffer,
  features: DeleteOptionsFeatures = {},
): DeleteRequestOptions {
  let dryRun = query.getAll('dryRun');
  let propagationPolicy = query.get('propagationPolicy') ?? undefined;
  let orphanDependents = optionalBool(query, 'orphanDependents');
  let gracePeriodSeconds = optionalInteger(query, 'gracePeriodSeconds');
  let ignoreReadError = optionalBool(query, IGNORE_READ_ERROR);
  let preconditions: Preconditions | undefined;
  let parsed: DeleteOptionsBody | null = null;
  if (body.length > 0) {
    const text = body.toString('utf8');
    try {
      parsed = JSON.parse(text) as DeleteOptionsBody | null;
    } catch {
      throw badRequest(`couldn't get version/kind; json parse error: ${goJSONSyntaxError(text)}`);
    }
  }
  // A `null` body (or YAML of comments alone) decodes, as Go's decoder reads null, to no options.
  if (parsed !== null) {
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw badRequest(
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${goTypeOf(parsed)} into Go value of type ${GO_TYPE_META_STRUCT}`,
      );
    }
    const problem = mistypedDeleteOption(parsed);
    if (problem !== undefined) throw badRequest(problem);
    const { kind, apiVersion } = parsed as { kind?: unknown; apiVersion?: unknown };
    // The reference decodes the body as the kind it names, and only a DeleteOptions will do:
    // another kind deletes nothing.
    if (typeof kind === 'string' && kind !== '' && kind !== 'DeleteOptions') {
      const version = typeof apiVersion === 'string' && apiVersion !== '' ? apiVersion : 'meta.k8s.io/v1';
      throw badRequest(
        `no kind ${goQuote(kind)} is registered for version ${goQuote(version)} in scheme "pkg/runtime/scheme.go:110"`,
      );
    }
    if (Array.isArray(parsed.dryRun)) dryRun = parsed.dryRun.map(String);
    if (typeof parsed.propagationPolicy === 'string') propagationPolicy = parsed.propagationPolicy;
    if (typeof parsed.orphanDependents === 'boolean') orphanDependents = parsed.orphanDependents;
    if (typeof parsed.gracePeriodSeconds === 'number') gracePeriodSeconds = parsed.gracePeriodSeconds;
    if (typeof parsed.ignoreStoreReadErrorWithClusterBreakingPotential === 'boolean')
      ignoreReadError = parsed.ignoreStoreReadErrorWithClusterBreakingPotential;
    if (parsed.preconditions && typeof parsed.preconditions === 'object') {
      const { uid, resourceVersion } = parsed.preconditions;
      preconditions = {
        uid: typeof uid === 'string' ? uid : undefined,
        resourceVersion: typeof resourceVersion === 'string' ? resourceVersion : undefined,
      };
    }
  }
  // With the feature off the reference clears the option before validating, as if never sent.
  if (!features.allowUnsafeMalformedObjectDeletion) ignoreReadError = undefined;
  validateDeleteOptions({
    dryRun,
    propagationPolicy,
    orphanDependents,
    gracePeriodSeconds,
    preconditions,
    ignoreReadError,
  });
  return {
    dryRun: dryRun.includes('All'),
    preconditions,
    propagationPolicy: propagationPolicy as PropagationPolicy | undefined,
    orphanDependents,
    gracePeriodSeconds,
    ignoreStoreReadErrorWithClusterBreakingPotential: ignoreReadError,
  };
}

/**
 * The reference's ValidateDeleteOptions, as a delete runs it (and an eviction, on the options it
 * carries): a 422 naming `DeleteOptions.meta.k8s.io ""`.
 */
export function validateDeleteOptions(options: {
  readonly dryRun: readonly string[];
  readonly propagationPolicy?: string;
  readonly orphanDependents?: boolean;
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: Preconditions;
  readonly ignoreReadError?: boolean;
}): void {
  const { dryRun, propagationPolicy, orphanDependents, gracePeriodSeconds, preconditions, ignoreReadError } = options;
  const errors: FieldError[] = [];
  if (propagationPolicy !== undefined && orphanDependents !== undefined) {
    errors.push(
      // A *metav1.DeletionPropagation, which the reference prints as JSON.
      invalidField(
        FieldPath.root('propagationPolicy'),
        new GoValue(goJSONQuote(propagationPolicy)),
        'orphanDependents and deletionPropagation cannot be both set',
      ),
    );
  }
  if (propagationPolicy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(propagationPolicy)) {
    errors.push(
      notSupported(FieldPath.root('propagationPolicy'), propagationPolicy, [
        'Foreground',
        'Background',
        'Orphan',
        'nil',
      ]),
    );
  }
  errors.push(...dryRunErrors(dryRun));
  if (ignoreReadError === true) {
    // The unsafe removal reads nothing, so no option that depends on the object may come with it.
    const alongside: [string, boolean][] = [
      ['dryRun', dryRun.length > 0],
      ['propagationPolicy', propagationPolicy !== undefined],
      ['orphanDependents', orphanDependents !== undefined],
      ['gracePeriodSeconds', gracePeriodSeconds !== undefined],
      ['preconditions', preconditions !== undefined],
    ];
    for (const [field, set] of alongside) {
      if (set)
        errors.push(invalidField(FieldPath.root(IGNORE_READ_ERROR), true, `cannot be set together with .${field}`));
    }
  }
  rejectIfAny('DeleteOptions', errors);
}
