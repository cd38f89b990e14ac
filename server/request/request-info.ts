/**
 * What a request is about, from its method, path and query alone, exactly as the reference's
 * RequestInfoFactory decides it: resource requests under `/api/<version>` and
 * `/apis/<group>/<version>`, everything else a non-resource request whose verb is the
 * lowercase HTTP method.
 */
import { splitUnescaped } from '../selectors/field-selector';

export interface RequestInfo {
  readonly isResourceRequest: boolean;
  /** The decoded URL path. */
  readonly path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection, proxy; or the lowercase method. */
  readonly verb: string;
  readonly apiPrefix: '' | 'api' | 'apis';
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** The path segments from the resource on (`['pods', 'web', 'log']`); for namespaces themselves, from `namespaces`. */
  readonly parts: readonly string[];
}

export interface RequestLine {
  readonly method: string;
  /** Percent-decoded path. */
  readonly path: string;
  /** Raw query string without `?`; read only when the verb depends on it. */
  readonly query: string;
}

/** A resource path too short to name what it is about, like `/api/v1/watch`. */
export class RequestInfoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestInfoError';
  }
}

/**
 * The verbs of a resource request's methods, matched case for case: any other method (OPTIONS,
 * a lower-case `get`, FOO) has none there, as in the reference, whose authorizers are then asked
 * about the verb "". A non-resource request's verb is its method in lower case.
 */
const METHOD_VERBS: Readonly<Record<string, string>> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};
/** Path segments that are verbs (`/api/v1/watch/pods`, the legacy watch form). */
const PATH_VERBS: ReadonlySet<string> = new Set(['proxy', 'redirect', 'watch']);
/** Path verbs after which a third segment is part of the proxied path, not a subresource. */
const PATH_VERBS_WITHOUT_SUBRESOURCES: ReadonlySet<string> = new Set(['proxy', 'redirect']);
/** `/namespaces/<name>/<this>` is the namespace's own subresource, not a namespaced resource. */
const NAMESPACE_SUBRESOURCES: ReadonlySet<string> = new Set(['status', 'finalize']);

export function resolveRequestInfo(request: RequestLine): RequestInfo {
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path: request.path,
    verb: request.method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  let parts = splitPath(request.path);
  if (parts.length < 3) return nonResource;
  const apiPrefix = parts[0];
  if (apiPrefix !== 'api' && apiPrefix !== 'apis') return nonResource;
  parts = parts.slice(1);

  let apiGroup = '';
  if (apiPrefix === 'apis') {
    // `/apis/<group>/<version>` alone is discovery, a non-resource path.
    if (parts.length < 3) return nonResource;
    apiGroup = parts[0];
    parts = parts.slice(1);
  }
  const apiVersion = parts[0];
  parts = parts.slice(1);

  let verb = METHOD_VERBS[request.method] ?? '';
  if (PATH_VERBS.has(parts[0])) {
    if (parts.length < 2) throw new RequestInfoError('unable to determine kind and namespace from url');
    verb = parts[0];
    parts = parts.slice(1);
  }

  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1];
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) parts = parts.slice(2);
  }

  const resource = parts[0] ?? '';
  let name = parts[1] ?? '';
  const subresource = parts.length >= 3 && !PATH_VERBS_WITHOUT_SUBRESOURCES.has(verb) ? parts[2] : '';

  if (name === '' && verb === 'get') {
    const collection = collectionVerb(request.query);
    verb = collection.watch ? 'watch' : 'list';
    name = collection.name;
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';

  return {
    isResourceRequest: true,
    path: request.path,
    verb,
    apiPrefix,
    apiGroup,
    apiVersion,
    namespace,
    resource,
    subresource,
    name,
    parts,
  };
}

function splitPath(path: string): string[] {
  // Slashes trimmed by index: the anchored alternation regex was half a percent of a create.
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === SLASH) start++;
  while (end > start && path.charCodeAt(end - 1) === SLASH) end--;
  return start === end ? [] : path.slice(start, end).split('/');
}

const SLASH = 0x2f;

/**
 * A GET on a collection lists or watches. A `metadata.name` field selector names the object,
 * so authorization can allow a list or watch of one object by name; the reference takes it only
 * when the whole query decodes as list options.
 */
function collectionVerb(query: string): { watch: boolean; name: string } {
  if (query === '') return { watch: false, name: '' };
  const params = new URLSearchParams(query);
  const watchValues = params.getAll('watch');
  // Only absence, "0" and "false" (any case) mean false; `?watch` alone is true.
  const watch = watchValues.length > 0 && watchValues[0] !== '0' && watchValues[0].toLowerCase() !== 'false';
  if (!integerParameterValid(params, 'limit') || !integerParameterValid(params, 'timeoutSeconds')) {
    return { watch, name: '' };
  }
  const fieldSelector = params.get('fieldSelector');
  const name = fieldSelector === null ? undefined : exactFieldMatch(fieldSelector, 'metadata.name');
  if (name === undefined || !validPathSegmentName(name)) return { watch, name: '' };
  return { watch, name };
}

function integerParameterValid(params: URLSearchParams, key: string): boolean {
  const value = params.get(key);
  return value === null || /^[+-]?\d+$/.test(value);
}

/**
 * The value `field=value` (or `==`) pins in a field selector, undefined when it pins none or
 * the selector does not parse (backslash escapes `\,` `\=` `\\` as the reference allows).
 */
function exactFieldMatch(selector: string, field: string): string | undefined {
  let found: string | undefined;
  for (const term of splitUnescaped(selector, ',')) {
    if (term === '') continue;
    const parsed = splitTerm(term);
    if (parsed === undefined) return undefined;
    const value = unescapeValue(parsed.value);
    if (value === undefined) return undefined;
    if (found === undefined && parsed.field === field && parsed.operator !== '!=') found = value;
  }
  return found;
}

/** At the first operator, as the reference splits a term (field names are not unescaped). */
function splitTerm(term: string): { field: string; operator: string; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const operator of ['!=', '==', '=']) {
      if (term.startsWith(operator, i)) {
        return { field: term.slice(0, i), operator, value: term.slice(i + operator.length) };
      }
    }
  }
  return undefined;
}

function unescapeValue(value: string): string | undefined {
  let result = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (char !== '\\') {
      if (char === '=' || char === ',') return undefined; // must be escaped
      result += char;
      continue;
    }
    const next = value[++i];
    if (next !== '\\' && next !== ',' && next !== '=') return undefined;
    result += next;
  }
  return result;
}

/** The reference's path.IsValidPathSegmentName. */
function validPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}
