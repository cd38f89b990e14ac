/**
 * JSON Patch as the reference applies it: its PATCH handler and its mutating admission policies
 * both use evanphx/json-patch v4, which departs from RFC 6902 where clients notice, so it is
 * written here (fast-json-patch follows the RFC):
 *
 * - a pointer's first segment is dropped unread, so `metadata/labels` means `/labels`;
 * - array indices are Go integers: `+1`, `01` and negative indices (counted from the end) work;
 * - a member whose value is null is absent; `replace` of a member an object lacks adds it, a
 *   `copy` from one copies null, and a `test` for null holds where the member is absent;
 * - `replace` of the whole document with anything but an object or array changes nothing;
 * - copies add at most 3 MiB (the reference's --json-patch-max-copy-bytes default).
 *
 * Failures are worded as the library words them, since clients print them.
 */
import { goQuote } from '../../api/go-quote';
import { copyJson, isObject } from '../json/value';

/** One operation as sent: the library reads each member only when the operation needs it. */
export type Operation = Readonly<Record<string, unknown>>;

/** The patch document is not a valid JSON Patch: a 400 for the caller. */
export class MalformedPatchError extends Error {}

/** A valid patch that cannot be applied to this document (a failed `test`, a missing path): a 422. */
export class PatchApplyError extends Error {}

/** A `test` operation that did not hold: callers that treat it as "leave the document" tell it apart. */
export class PatchTestFailedError extends PatchApplyError {}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';
const COPY_LIMIT_BYTES = 3 * 1024 * 1024;

/** The operations of a JSON Patch document: `null` is an empty patch, a null operation an empty one. */
export function parseJsonPatch(body: string): Operation[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new MalformedPatchError(`invalid JSON Patch: ${(error as Error).message}`);
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) {
    throw new MalformedPatchError(`json: cannot unmarshal ${goJsonKind(parsed)} into Go value of type jsonpatch.Patch`);
  }
  // Each operation decodes into a map: a null one is empty (refused when applied), a scalar or list does not decode.
  for (const item of parsed) {
    if (item !== null && !isObject(item)) {
      throw new MalformedPatchError(
        `json: cannot unmarshal ${goJsonKind(item)} into Go value of type jsonpatch.Operation`,
      );
    }
  }
  return parsed.map((item: Operation | null) => item ?? {});
}

/** The JSON kind Go's decoder names in its type errors. */
export function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
}

type Container = Record<string, unknown> | unknown[];

/** Go's strconv.Atoi: an optional sign and decimal digits within int64, or the error it gives. */
function atoi(key: string): number | { readonly error: string } {
  if (!/^[+-]?\d+$/.test(key)) return { error: `strconv.Atoi: parsing ${goQuote(key)}: invalid syntax` };
  const value = BigInt(key);
  if (value > 9223372036854775807n || value < -9223372036854775808n)
    return { error: `strconv.Atoi: parsing ${goQuote(key)}: value out of range` };
  return Number(value);
}

function invalidIndex(index: number): PatchApplyError {
  return new PatchApplyError(`Unable to access invalid index: ${index}: ${INVALID_INDEX}`);
}

/** An index into a list of `length`, negative ones counted from the end; `undefined` for an index before its start. */
function fromEnd(index: number, length: number): number | undefined {
  if (index >= 0) return index;
  return index < -length ? undefined : index + length;
}

/** The value at `key`, undefined for an absent or null member; a bad or out-of-range index throws. */
function get(container: Container, key: string): unknown {
  if (!Array.isArray(container)) return container[key] ?? undefined;
  const index = atoi(key);
  if (typeof index !== 'number') throw new PatchApplyError(index.error);
  const at = fromEnd(index, container.length);
  if (at === undefined) throw invalidIndex(index);
  if (at >= container.length) throw invalidIndex(at);
  return container[at];
}

function add(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    container[key] = value;
    return;
  }
  if (key === '-') {
    container.push(value);
    return;
  }
  const index = atoi(key);
  if (typeof index !== 'number')
    throw new PatchApplyError(`value was not a proper array index: '${key}': ${index.error}`);
  // Adding makes the list one longer: its new length bounds the index.
  const length = container.length + 1;
  if (index >= length) throw invalidIndex(index);
  const at = fromEnd(index, length);
  if (at === undefined) throw invalidIndex(index);
  container.splice(at, 0, value);
}

/** Replaces what `get` found. */
function set(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    container[key] = value;
    return;
  }
  const index = atoi(key) as number;
  container[fromEnd(index, container.length)!] = value;
}

function remove(container: Container, key: string): void {
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key))
      throw new PatchApplyError(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete container[key];
    return;
  }
  const index = atoi(key);
  if (typeof index !== 'number') throw new PatchApplyError(index.error);
  if (index >= container.length) throw invalidIndex(index);
  const at = fromEnd(index, container.length);
  if (at === undefined) throw invalidIndex(index);
  container.splice(at, 1);
}

function unescaped(token: string): string {
  return token.replace(/~[01]/g, (escape) => (escape === '~1' ? '/' : '~'));
}

/**
 * The container a pointer's last token is in, and that token; undefined where the pointer has
 * no `/` or a segment on the way is absent, null, a scalar or an index that does not resolve.
 * The first segment is dropped unread, as the library does.
 */
function parentOf(
  root: Container,
  pointer: string,
  observer?: InsertionObserver,
): { container: Container; key: string } | undefined {
  const segments = pointer.split('/');
  if (segments.length < 2) return undefined;
  let container = root;
  for (const segment of segments.slice(1, -1)) {
    let next: unknown;
    try {
      next = get(container, unescaped(segment));
    } catch {
      return undefined;
    }
    if (!Array.isArray(next) && !isObject(next)) return undefined;
    observer?.opened(next);
    container = next;
  }
  return { container, key: unescaped(segments[segments.length - 1]) };
}

/** An operation's `path` or `from`: a string, or the library's error for an absent, null or other member. */
function pointerOf(operation: Operation, member: 'path' | 'from'): string | { readonly error: string } {
  const value = operation[member];
  if (value === undefined || value === null)
    return { error: `operation${member === 'from' ? ',' : ''} missing ${member} field: ${MISSING}` };
  if (typeof value !== 'string')
    return { error: `json: cannot unmarshal ${goJsonKind(value)} into Go value of type string` };
  return value;
}

/** Structural equality as the library judges it: a null member counts, unlike an absent one. */
function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => equal(item, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equal(a[key], b[key]));
  }
  return a === b;
}

/** A value the patch puts in the document: a copy, so that later operations never change the patch itself. */
function inserted(value: unknown): unknown {
  return value === undefined ? null : copyJson(value);
}

/**
 * What a caller follows of the values a patch inserts (json-patch-repeated-keys.ts keeps their
 * bytes, as the library does): each value inserted, each container an operation goes into (the
 * library decodes it then), each value a test compares (decoded whole) and each copy.
 */
export interface InsertionObserver {
  inserted(operation: Operation, value: unknown): void;
  opened(container: unknown): void;
  compared(value: unknown): void;
  copied(source: unknown, copy: unknown): void;
}

interface PatchState {
  root: Container;
  copiedBytes: number;
  readonly observer?: InsertionObserver;
}

/** `inserted` with the observer told of it. */
function insertedBy(state: PatchState, operation: Operation): unknown {
  const value = inserted(operation.value);
  state.observer?.inserted(operation, value);
  return value;
}

function applyOperation(state: PatchState, operation: Operation): void {
  const kind = typeof operation.op === 'string' ? operation.op : 'unknown';
  const value = operation.value;
  const hasValue = Object.hasOwn(operation, 'value');
  const path = pointerOf(operation, 'path');
  const from = pointerOf(operation, 'from');
  const fail = (message: string) => new PatchApplyError(message);
  // The library wraps each failure with what it was doing.
  const within = (context: string, run: () => void) => {
    try {
      run();
    } catch (error) {
      if (error instanceof PatchApplyError) throw fail(`${context}: ${error.message}`);
      throw error;
    }
  };
  switch (kind) {
    case 'add': {
      if (typeof path !== 'string') throw fail(`add operation failed to decode path: ${MISSING}`);
      const found = parentOf(state.root, path, state.observer);
      if (found === undefined) throw fail(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
      within(`error in add for path: '${path}'`, () => add(found.container, found.key, insertedBy(state, operation)));
      return;
    }
    case 'remove': {
      if (typeof path !== 'string') throw fail(`remove operation failed to decode path: ${MISSING}`);
      const found = parentOf(state.root, path, state.observer);
      if (found === undefined)
        throw fail(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
      within(`error in remove for path: '${path}'`, () => remove(found.container, found.key));
      return;
    }
    case 'replace': {
      if (typeof path !== 'string') throw fail(`replace operation failed to decode path: ${path.error}`);
      if (path === '') {
        // The library's check of the new document's type wraps no error, so anything else is no change.
        if (!hasValue) throw fail('replace operation value must be object or array');
        if (Array.isArray(value) || isObject(value)) state.root = insertedBy(state, operation) as Container;
        return;
      }
      const found = parentOf(state.root, path, state.observer);
      if (found === undefined) throw fail(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
      try {
        get(found.container, found.key);
      } catch {
        throw fail(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
      }
      set(found.container, found.key, insertedBy(state, operation));
      return;
    }
    case 'move': {
      if (typeof from !== 'string') throw fail(`move operation failed to decode from: ${from.error}`);
      const source = parentOf(state.root, from, state.observer);
      if (source === undefined)
        throw fail(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
      let moved: unknown;
      within(`error in move for path: '${source.key}'`, () => {
        moved = get(source.container, source.key);
        remove(source.container, source.key);
      });
      if (typeof path !== 'string') throw fail(`move operation failed to decode path: ${path.error}`);
      const target = parentOf(state.root, path, state.observer);
      if (target === undefined)
        throw fail(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
      within(`error in move for path: '${path}'`, () => add(target.container, target.key, moved ?? null));
      return;
    }
    case 'test': {
      if (typeof path !== 'string') throw fail(`test operation failed to decode path: ${path.error}`);
      const failed = () => new PatchTestFailedError(`testing value ${path} failed: test failed`);
      if (path === '') {
        state.observer?.compared(state.root);
        if (!equal(state.root, value)) throw failed();
        return;
      }
      const found = parentOf(state.root, path, state.observer);
      if (found === undefined) throw fail(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
      let actual: unknown;
      within(`error in test for path: '${path}'`, () => (actual = get(found.container, found.key)));
      // An absent or null member holds against an absent or null value, and nothing else.
      if (actual === undefined || actual === null) {
        if (value !== undefined && value !== null) throw failed();
        return;
      }
      state.observer?.compared(actual);
      if (!hasValue || !equal(actual, value)) throw failed();
      return;
    }
    case 'copy': {
      if (typeof from !== 'string') throw fail(`copy operation failed to decode from: ${from.error}`);
      const source = parentOf(state.root, from, state.observer);
      if (source === undefined)
        throw fail(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
      let copied: unknown;
      within(`error in copy for from: '${from}'`, () => (copied = get(source.container, source.key)));
      if (typeof path !== 'string') throw fail(`copy operation failed to decode path: ${MISSING}`);
      const target = parentOf(state.root, path, state.observer);
      if (target === undefined)
        throw fail(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
      if (copied !== undefined) {
        state.copiedBytes += Buffer.byteLength(JSON.stringify(copied));
        if (state.copiedBytes > COPY_LIMIT_BYTES)
          throw fail(
            `Unable to complete the copy, the accumulated size increase of copy is ${state.copiedBytes}, exceeding the limit ${COPY_LIMIT_BYTES}`,
          );
      }
      const copy = copied === undefined ? null : copyJson(copied);
      state.observer?.copied(copied, copy);
      within('error while adding value during copy', () => add(target.container, target.key, copy));
      return;
    }
    default:
      throw fail(`Unexpected kind: ${kind}`);
  }
}

/**
 * Applies to a copy, operation by operation, stopping at the first failure; the input document
 * is not changed. The observer, if any, follows the values inserted.
 */
export function applyJsonPatch(document: unknown, patch: readonly Operation[], observer?: InsertionObserver): unknown {
  const state: PatchState = { root: copyJson(document) as Container, copiedBytes: 0, observer };
  for (const operation of patch) applyOperation(state, operation);
  return state.root;
}
