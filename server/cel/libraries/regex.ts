/**
 * Regular expressions with RE2's semantics and linear-time guarantee: `matches` (standard
 * library; the engine's own uses JavaScript's backtracking RegExp, so it is replaced) and the
 * Kubernetes regex library's `find` and `findAll`. No pattern can make an evaluation hang.
 */
import type { Environment } from '@marcbachmann/cel-js';
import RE2 from 're2';
import { sizeOf, STRING_TRAVERSAL_FACTOR } from '../runtime-cost';
import { CelFunctionError, type CelLibrary } from './library';

const REGEX_LENGTH_FACTOR = 0.25;
const CACHE_LIMIT = 256;
const compiled = new Map<string, RE2>();

/** The compiled pattern (kept for reuse: rules run the same few patterns again and again). */
function regex(pattern: string): RE2 {
  let re = compiled.get(pattern);
  if (re === undefined) {
    try {
      re = new RE2(pattern, 'u');
    } catch (error) {
      throw new CelFunctionError(`error parsing regexp: ${(error as Error).message}`);
    }
    if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, re);
  }
  return re;
}

export function matches(text: string, pattern: string): boolean {
  const re = regex(pattern);
  re.lastIndex = 0;
  return re.test(text);
}

function find(text: string, pattern: string): string {
  const re = regex(pattern);
  re.lastIndex = 0;
  return re.exec(text)?.[0] ?? '';
}

/** Width in UTF-16 units of the character at `index` (1 past the end, so scanning ends). */
function charWidth(text: string, index: number): number {
  return (text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
}

/** Go's FindAllString: successive non-overlapping matches, an empty one not right after another. */
function findAll(text: string, pattern: string, limit = -1n): string[] {
  const re = new RE2(regex(pattern), 'gu');
  const found: string[] = [];
  let position = 0;
  let previousEnd = -1;
  while ((limit < 0n || BigInt(found.length) < limit) && position <= text.length) {
    re.lastIndex = position;
    const match = re.exec(text);
    if (match === null) break;
    const start = match.index;
    const end = start + match[0].length;
    if (start === end && start === previousEnd) {
      position = start + charWidth(text, start);
      continue;
    }
    found.push(match[0]);
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
