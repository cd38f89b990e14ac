/**
 * The list `continue` token, in the reference server's format so tokens survive a request
 * landing on another replica (or another implementation): base64 RawURL without padding of
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the list prefix>"}`.
 * `rv` -1 means "continue at the newest revision" (handed out after the pinned one was compacted).
 */
import path from 'node:path';
import { goJSONSyntaxError } from '../../api/go-json-syntax';
import { ObjectError } from '../errors';

const TOKEN_VERSION = 'meta.k8s.io/v1';
const BASE64_RAW_URL = /^[A-Za-z0-9_-]*$/;

/** Continue at the newest revision instead of a pinned one. */
export const LATEST_REVISION = -1;

export interface ContinuePosition {
  /** Revision every page is read at; `LATEST_REVISION` for the newest. */
  readonly revision: number;
  /** Full store key to resume from (inclusive). */
  readonly startKey: string;
}

/** A token resuming at `startKey` (a full key under `listPrefix`), at `revision`. */
export function encodeContinueToken(options: { listPrefix: string; startKey: string; revision: number }): string {
  if (!options.startKey.startsWith(options.listPrefix)) {
    throw new Error(`continue key ${options.startKey} is outside the list prefix ${options.listPrefix}`);
  }
  const json = JSON.stringify({
    v: TOKEN_VERSION,
    rv: options.revision,
    start: options.startKey.slice(options.listPrefix.length),
  });
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** The position a token names; throws BadRequest "invalid continue token: ..." when it is malformed. */
export function decodeContinueToken(token: string, listPrefix: string): ContinuePosition {
  const invalid = (problem: string): ObjectError =>
    new ObjectError('BadRequest', `invalid continue token: continue key is not valid${problem}`);

  // Buffer's base64 decoder skips characters it does not know; the reference refuses them.
  if (!BASE64_RAW_URL.test(token) || token.length % 4 === 1) {
    const badAt = token.search(/[^A-Za-z0-9_-]/);
    throw invalid(`: illegal base64 data at input byte ${badAt >= 0 ? badAt : token.length - 1}`);
  }
  const bytes = Buffer.from(token, 'base64url');
  const json = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    // The bytes as decoded: a byte that is no UTF-8 is named itself, not the text's replacement.
    throw invalid(`: ${goJSONSyntaxError(bytes)}`);
  }
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalid(`: json: cannot unmarshal ${jsonKind(json.trim())} into Go value of type storage.continueToken`);
  }
  const fields = tokenFields(json);
  if (fields.v !== TOKEN_VERSION) throw invalid(`: server does not recognize this encoded version ${fields.v}`);
  if (fields.rv === 0) throw invalid(`: incorrect encoded start resourceVersion (version ${TOKEN_VERSION})`);
  if (fields.start === '') throw invalid(`: encoded start key empty (version ${TOKEN_VERSION})`);
  // A start key that cleans to something else could climb out of the list prefix ("../").
  const rooted = fields.start.startsWith('/') ? fields.start : `/${fields.start}`;
  if (cleanPath(rooted) !== rooted) throw invalid(`: ${fields.start}`);
  // The reference reads any revision below zero, as -1, at the newest one.
  return { revision: fields.rv < 0 ? LATEST_REVISION : fields.rv, startKey: listPrefix + rooted.slice(1) };
}

interface TokenFields {
  v: string;
  rv: number;
  start: string;
}

const FIELD_TYPES: Readonly<Record<keyof TokenFields, 'string' | 'int64'>> = {
  v: 'string',
  rv: 'int64',
  start: 'string',
};

/**
 * The token's fields as Go's decoder fills its struct from a JSON object text already known to
 * parse: names matched without regard to case, members in order (a repeated one: the last
 * wins), null leaving a field as it was, and the first member of a type the field cannot take
 * (a revision that is no int64: a fraction, an exponent, a number past its range, which
 * JSON.parse would round) refused with Go's unmarshal error.
 */
function tokenFields(json: string): TokenFields {
  const fields: TokenFields = { v: '', rv: 0, start: '' };
  for (const [key, text] of topLevelMembers(json)) {
    const name = key.toLowerCase() as keyof TokenFields;
    const type = FIELD_TYPES[name];
    if (type === undefined || text === 'null') continue;
    const kind = jsonKind(text);
    const fits =
      type === 'string'
        ? kind === 'string'
        : /^-?\d+$/.test(text) && BigInt(text) >= INT64_MIN && BigInt(text) <= INT64_MAX;
    if (!fits) {
      const what = kind === 'number' && type === 'int64' ? `number ${text}` : kind;
      throw new ObjectError(
        'BadRequest',
        `invalid continue token: continue key is not valid: json: cannot unmarshal ${what} into Go struct field continueToken.${name} of type ${type}`,
      );
    }
    if (name === 'rv') fields.rv = Number(text);
    else fields[name] = JSON.parse(text) as string;
  }
  return fields;
}

/** Go's name for the JSON type of a value as written. */
function jsonKind(text: string): string {
  if (text.startsWith('"')) return 'string';
  if (text.startsWith('{')) return 'object';
  if (text.startsWith('[')) return 'array';
  if (text === 'true' || text === 'false') return 'bool';
  return 'number';
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Each top-level member's name and value as written, in order, in a JSON object text already known to parse. */
function topLevelMembers(json: string): [string, string][] {
  const members: [string, string][] = [];
  const start = json.indexOf('{');
  if (start < 0) return members;
  let depth = 0;
  let key: string | undefined;
  let valueStart = -1;
  for (let i = start; i < json.length; i++) {
    const character = json[i];
    if (character === '"') {
      const end = endOfString(json, i);
      if (depth === 1 && key === undefined && valueStart < 0) key = JSON.parse(json.slice(i, end + 1)) as string;
      i = end;
    } else if (character === '{' || character === '[') {
      depth++;
    } else if (character === '}' || character === ']' || (character === ',' && depth === 1)) {
      if (depth === 1 && key !== undefined && valueStart >= 0) {
        members.push([key, json.slice(valueStart, i).trim()]);
        key = undefined;
        valueStart = -1;
      }
      if (character !== ',') depth--;
    } else if (character === ':' && depth === 1) {
      valueStart = i + 1;
    }
  }
  return members;
}

/** The index of the quote that closes the string opening at `open`. */
function endOfString(json: string, open: number): number {
  for (let i = open + 1; i < json.length; i++) {
    if (json[i] === '\\') i++;
    else if (json[i] === '"') return i;
  }
  return json.length - 1;
}

/** Go's path.Clean: like posix normalize, but without a trailing slash. */
function cleanPath(value: string): string {
  const normalized = path.posix.normalize(value);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}
