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
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (error) {
    throw invalid(`: ${(error as Error).message}`);
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const version = fields.v;
  if (version !== TOKEN_VERSION) {
    throw invalid(`: server does not recognize this encoded version ${typeof version === 'string' ? version : ''}`);
  }
  const revision = fields.rv;
  if (typeof revision !== 'number' || !Number.isInteger(revision) || revision === 0) {
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

/** Go's path.Clean: like posix normalize, but without a trailing slash. */
function cleanPath(value: string): string {
  const normalized = path.posix.normalize(value);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}
