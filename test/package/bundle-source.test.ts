/**
 * The server's one-file bundle (dist/capstan.js) stays Latin-1. V8 keeps every script's source
 * for the life of the process, one byte a character when all of them fit in Latin-1 and two
 * bytes otherwise: a single Greek letter in a regular expression once made the 4.6 MB bundle
 * take 9.3 MB of an idle server's heap. esbuild escapes such characters in strings but not in
 * regular expression literals, so they must be written as `\u` escapes in the sources.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ON_DEMAND_FOLDERS, ON_DEMAND_PACKAGES } from '../../tools/bundle/bundle';

const BUNDLE = join(__dirname, '..', '..', 'dist', 'capstan.js');

test('the bundle has no character above U+00FF', () => {
  const source = readFileSync(BUNDLE, 'utf8');
  const wide = [...source.matchAll(/[^\u0000-\u00ff]/gu)].map(
    (match) => `${JSON.stringify(match[0])} in …${source.slice(Math.max(0, match.index - 40), match.index + 10)}…`,
  );
  expect(wide).toEqual([]);
});

test('the packages loaded on demand stay in node_modules, where the bundle finds them', () => {
  const source = readFileSync(BUNDLE, 'utf8');
  const requireFromBundle = createRequire(BUNDLE);
  for (const name of ON_DEMAND_PACKAGES) {
    // esbuild names each bundled CommonJS file by its path.
    expect({ name, bundled: source.includes(`node_modules/${name}/`) }).toEqual({ name, bundled: false });
    expect(source).toMatch(new RegExp(`require\\("${name}["/]`));
    expect(() => requireFromBundle.resolve(name)).not.toThrow();
  }
});

test('the data folders loaded on demand stay in node_modules, where the bundle finds their files', () => {
  const source = readFileSync(BUNDLE, 'utf8');
  const requireFromBundle = createRequire(BUNDLE);
  for (const folder of ON_DEMAND_FOLDERS) {
    expect({ folder, bundled: source.includes(`node_modules/${folder}`) }).toEqual({ folder, bundled: false });
    const required = [...source.matchAll(/\brequire\("([^"]+)"\)/g)]
      .map((match) => match[1])
      .filter((path) => path.startsWith(folder));
    expect({ folder, required: required.length > 0 }).toEqual({ folder, required: true });
    for (const path of required) {
      expect(() => requireFromBundle.resolve(path)).not.toThrow();
    }
  }
});

test('no bundled code requires a file by a relative path, which would be looked for beside the bundle', () => {
  // A UMD module requires its own files through its factory's parameter (`require2("./impl/x")`):
  // esbuild leaves those calls as they are, and they fail when they run.
  const source = readFileSync(BUNDLE, 'utf8');
  const relative = [...source.matchAll(/\brequire\d*\("(\.\.?\/[^"]*)"\)/g)].map((match) => match[1]);
  expect(relative).toEqual([]);
});
