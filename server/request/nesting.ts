/**
 * The nesting bound of request bodies and patches. Everything after parsing walks values
 * recursively (typing, merging, JSON.stringify, structuredClone, the protobuf and CBOR
 * encoders), and V8's own JSON.stringify already fails near 5,000 levels on Node's default
 * stack, so a parsed value deeper than this is refused before any of them sees it. The
 * reference's JSON decoder stops at 10,000 levels; no Kubernetes object comes near either.
 */
import { badRequest } from '../status/catalogue';
import type { StatusError } from '../status/status-error';

export const MAX_NESTING_DEPTH = 1_000;

/** How deep `value` nests (a scalar is 0, `[]` is 1), counting no further than `limit + 1`; iterative. */
export function nestingDepth(value: unknown, limit = MAX_NESTING_DEPTH): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const current = next.value;
    if (typeof current !== 'object' || current === null) continue;
    const depth = next.depth + 1;
    if (depth > deepest) deepest = depth;
    if (depth > limit) return depth;
    const children = Array.isArray(current) ? current : Object.values(current as Record<string, unknown>);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
    }
  }
  return deepest;
}

/** The 400 for a value nested past the bound; `what` names the document (`json`, `yaml`, ...). */
export function tooDeep(what: string): StatusError {
  return badRequest(`${what}: exceeded max depth of ${MAX_NESTING_DEPTH}`);
}

/** Throws the 400 when `value` nests deeper than the bound. */
export function checkNestingDepth(value: unknown, what: string): void {
  if (nestingDepth(value) > MAX_NESTING_DEPTH) throw tooDeep(what);
}
