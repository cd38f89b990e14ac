/**
 * The committed spec lists of `make conformance`: `api-only.txt`, the specs measured (the
 * reference suite's API-only specs of sig-api-machinery and sig-auth), and `expected-pass.txt`,
 * those capstan passes now. One full spec text per line; `#` starts a comment line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SpecResult } from './e2e-suite';

// Beside this source file, or beside its compiled copy under dist/.
const LISTS =
  [__dirname, join(__dirname, '..', '..', '..', 'tools', 'conformance')].find((dir) =>
    existsSync(join(dir, 'api-only.txt')),
  ) ?? __dirname;
export const API_ONLY_LIST = join(LISTS, 'api-only.txt');
export const EXPECTED_PASS_LIST = join(LISTS, 'expected-pass.txt');

export function readSpecList(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

export interface Verdict {
  /** Expected to pass and did not: the run fails. */
  readonly regressions: SpecResult[];
  /** Passed and not yet in the expected list: add them. */
  readonly newPasses: SpecResult[];
}

export function judge(results: readonly SpecResult[], expectedPass: readonly string[]): Verdict {
  const expected = new Set(expectedPass);
  return {
    regressions: results.filter((result) => expected.has(result.spec) && result.outcome !== 'passed'),
    newPasses: results.filter((result) => !expected.has(result.spec) && result.outcome === 'passed'),
  };
}
