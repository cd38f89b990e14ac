/**
 * Configuration files given to the reference kube-apiserver v1.34.4 at start, as fixtures:
 * each case's text and the error the reference exited with (`refusal`), or null where it
 * started (it then stopped only for want of etcd). A `{FILE}` in a refusal is the file's path,
 * a `{DIR}` in a text or refusal the folder the test writes beside it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RecordedConfigCase {
  readonly name: string;
  readonly text: string;
  readonly refusal: string | null;
}

export function recordedConfigCases(fixture: string): readonly RecordedConfigCase[] {
  return (JSON.parse(readFileSync(fixture, 'utf8')) as { cases: RecordedConfigCase[] }).cases;
}

/** Writes the case's text into the folder, returning its path. */
export function writeRecordedCase(dir: string, recorded: RecordedConfigCase): string {
  const path = join(dir, 'config.yaml');
  writeFileSync(path, recorded.text.replaceAll('{DIR}', dir));
  return path;
}

/**
 * The refusal as a reader words it: without the words its caller adds (`prefix`), the case's
 * paths filled in, and for a syntax error only the words up to yaml.v2's `yaml: `, since what
 * follows is the YAML library's own account of the error, not worded as yaml.v2's parser words it.
 */
export function readerRefusal(refusal: string, options: { prefix: string; path: string; dir: string }): string {
  if (!refusal.startsWith(options.prefix)) throw new Error(`the recorded refusal lacks ${options.prefix}: ${refusal}`);
  const words = refusal
    .slice(options.prefix.length)
    .replaceAll('{FILE}', options.path)
    .replaceAll('{DIR}', options.dir);
  return /^(.*?yaml: )line \d+: /.exec(words)?.[1] ?? words;
}
