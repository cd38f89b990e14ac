/**
 * Regular expressions with RE2's semantics and linear-time guarantee: `matches` (standard
 * library; the engine's own uses JavaScript's backtracking RegExp, so it is replaced) and the
 * Kubernetes regex library's `find` and `findAll`. No pattern can make an evaluation hang.
 */
import type { Environment } from '@marcbachmann/cel-js';
// re2js: RE2 ported to JavaScript, linear time like the native library, with nothing to build
// at install time (the native binding compiles for minutes, which `make run` cannot afford).
import type { RE2JS } from 're2js';
import { compileRe2 } from '../../regex/re2';
import { sizeOf, STRING_TRAVERSAL_FACTOR } from '../runtime-cost';
import { CelFunctionError, type CelLibrary } from './library';

const REGEX_LENGTH_FACTOR = 0.25;
const CACHE_LIMIT = 256;
const compiled = new Map<string, RE2JS>();
const PARSE_ERROR_PREFIX = 'error parsing regexp: ';

/** The compiled pattern (kept for reuse: rules run the same few patterns again and again). */
function regex(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (re === undefined) {
    try {
      re = compileRe2(pattern);
    } catch (error) {
      const message = (error as Error).message;
      throw new CelFunctionError(message.startsWith(PARSE_ERROR_PREFIX) ? message : `${PARSE_ERROR_PREFIX}${message}`);
    }
    if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, re);
  }
  return re;
}

export function matches(text: string, pattern: string): boolean {
  return regex(pattern).test(text);
}

function find(text: string, pattern: string): string {
  const matcher = regex(pattern).matcher(text);
  return matcher.find() ? (matcher.group() ?? '') : '';
}

/** Width in UTF-16 units of the character at `index` (1 past the end, so scanning ends). */
function charWidth(text: string, index: number): number {
  return (text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
}

/** Go's FindAllString: successive non-overlapping matches, an empty one not right after another. */
function findAll(text: string, pattern: string, limit = -1n): string[] {
  const matcher = regex(pattern).matcher(text);
  const found: string[] = [];
  let position = 0;
  let previousEnd = -1;
  while ((limit < 0n || BigInt(found.length) < limit) && position <= text.length) {
    if (!matcher.find(position)) break;
    const start = matcher.start();
    const end = matcher.end();
    if (start === end && start === previousEnd) {
      position = start + charWidth(text, start);
      continue;
    }
    found.push(matcher.group() ?? '');
    previousEnd = end;
    position = end > start ? end : start + charWidth(text, start);
  }
  return found;
}

const regexCost = ([text, pattern]: readonly unknown[]): number =>
  Math.ceil((1 + sizeOf(text)) * STRING_TRAVERSAL_FACTOR) * Math.ceil(sizeOf(pattern) * REGEX_LENGTH_FACTOR);

export const regexLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerFunction('matches(string, string): bool', matches)
      .registerFunction('string.find(string): string', find)
      .registerFunction('string.findAll(string): list<string>', findAll)
      .registerFunction('string.findAll(string, int): list<string>', findAll);
  },
  costs: {
    '.matches': regexCost,
    matches: regexCost,
    '.find': regexCost,
    '.findAll': regexCost,
  },
  overrides: {
    '.matches/1': matches,
  },
};
