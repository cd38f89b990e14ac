/**
 * Where the generated schema files (server/schema/generated/) are found by the code that runs:
 * the sources under jest (server/schema/), the compiled modules (dist/server/schema/) and the
 * one-file bundle the executables start (dist/capstan.js, tools/bundle-server.sh). The data is
 * never copied into dist/, so each looks upward for the sources' folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** How far up from this module's folder the project root may be. */
const LEVELS_UP = 3;

/** The folders a generated file may be in, nearest first: for messages that say where we looked. */
export function generatedFileCandidates(fileName: string): string[] {
  const candidates = [path.join(__dirname, 'generated', fileName)];
  for (let dir = __dirname, level = 0; level <= LEVELS_UP; level++, dir = path.dirname(dir))
    candidates.push(path.join(dir, 'server', 'schema', 'generated', fileName));
  return candidates;
}

/** The path of a generated file, or undefined when it was never generated (or fetched). */
export function generatedFile(fileName: string): string | undefined {
  return generatedFileCandidates(fileName).find((candidate) => fs.existsSync(candidate));
}
