/**
 * The server's one-file bundle (dist/capstan.js) stays Latin-1. V8 keeps every script's source
 * for the life of the process, one byte a character when all of them fit in Latin-1 and two
 * bytes otherwise: a single Greek letter in a regular expression once made the 4.6 MB bundle
 * take 9.3 MB of an idle server's heap. esbuild escapes such characters in strings but not in
 * regular expression literals, so they must be written as `\u` escapes in the sources.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

test('the bundle has no character above U+00FF', () => {
  const source = readFileSync(join(__dirname, '..', '..', 'dist', 'capstan.js'), 'utf8');
  const wide = [...source.matchAll(/[^\u0000-\u00ff]/gu)].map(
    (match) => `${JSON.stringify(match[0])} in …${source.slice(Math.max(0, match.index - 40), match.index + 10)}…`,
  );
  expect(wide).toEqual([]);
});
