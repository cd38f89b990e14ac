/**
 * RE2 patterns (Go's regexp: what the reference accepts, and linear time) for CRD schema
 * patterns and CEL's regex functions, with re2js loaded on the first pattern compiled: it is a
 * quarter MiB of source and about 0.6 MiB of heap that a server whose CRDs have no pattern and
 * whose rules call no regex function never needs, and idle memory counts.
 */
import type { RE2JS } from 're2js';

let engine: typeof RE2JS | undefined;

/** Compiles `pattern`; throws RE2's parse error for one it does not accept. */
export function compileRe2(pattern: string): RE2JS {
  engine ??= (require('re2js') as typeof import('re2js')).RE2JS;
  return engine.compile(pattern);
}
