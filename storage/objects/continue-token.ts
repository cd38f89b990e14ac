/**
 * The list `continue` token, in the reference server's format so tokens survive a request
 * landing on another replica (or another implementation): base64 RawURL without padding of
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the list prefix>"}`.
 * `rv` -1 means "continue at the newest revision" (handed out after the pinned one was compacted).
 */
import path from 'node:path';
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
  const json = Buffer.from(token, 'base64url').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw invalid(`: ${(error as Error).message}`);
  }
  // Go's decoder refuses a revision that is no int64 before anything is looked at.
  const revisionProblem = int64MemberProblem(json, 'rv');
  if (revisionProblem !== undefined) throw invalid(`: ${revisionProblem}`);
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const version = fields.v;
  if (version !== TOKEN_VERSION) {
    throw invalid(`: server does not recognize this encoded version ${typeof version === 'string' ? version : ''}`);
  }
  const revision = fields.rv;
  if (typeof revision !== 'number' || revision === 0) {
    throw invalid(`: incorrect encoded start resourceVersion (version ${TOKEN_VERSION})`);
  }
  const start = fields.start;
  if (typeof start !== 'string' || start.length === 0) {
    throw invalid(`: encoded start key empty (version ${TOKEN_VERSION})`);
  }
  // A start key that cleans to something else could climb out of the list prefix ("../").
  const rooted = start.startsWith('/') ? start : `/${start}`;
  if (cleanPath(rooted) !== rooted) throw invalid(`: ${start}`);
  return { revision, startKey: listPrefix + rooted.slice(1) };
}

/**
 * Go's unmarshal error for a top-level member of the token's int64 field that is not an int64:
 * a fraction, an exponent or a number past its range (which JSON.parse would round, or take
 * for a revision far in the future), or another JSON type. Undefined when it fits or is absent.
 */
function int64MemberProblem(json: string, member: string): string | undefined {
  const text = topLevelMemberTexts(json).get(member);
  if (text === undefined || text === 'null') return undefined;
  const where = `into Go struct field continueToken.${member} of type int64`;
  if (/^-?\d+$/.test(text)) {
    const value = BigInt(text);
    return value >= INT64_MIN && value <= INT64_MAX ? undefined : `json: cannot unmarshal number ${text} ${where}`;
  }
  if (/^-?\d/.test(text)) return `json: cannot unmarshal number ${text} ${where}`;
  const kind = text.startsWith('"')
    ? 'string'
    : text.startsWith('{')
      ? 'object'
      : text.startsWith('[')
        ? 'array'
        : 'bool';
  return `json: cannot unmarshal ${kind} ${where}`;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Each top-level member's value as written, in a JSON object text already known to parse; the last of a repeated name wins, as in Go. */
function topLevelMemberTexts(json: string): Map<string, string> {
  const members = new Map<string, string>();
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
        members.set(key, json.slice(valueStart, i).trim());
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
