/**
 * Property names of OpenAPI schemas as CEL identifiers.
 *
 * A schema property may be named `x-y`, `a.b` or `if`, none of which is a CEL identifier. The
 * reference makes such properties reachable by escaping: `__` becomes `__underscores__`, `.`
 * `__dot__`, `-` `__dash__`, `/` `__slash__`, and a CEL reserved word `w` becomes `__w__`.
 * Names outside `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` cannot be escaped and are left out of the type.
 */

const RESERVED_WORDS = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

const IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/** Whether a name can be declared as a CEL variable: an identifier that is no reserved word. */
export function isCelIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED_WORDS.has(name);
}

const ESCAPABLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;

const ESCAPES: ReadonlyArray<readonly [string, string]> = [
  ['__', '__underscores__'],
  ['.', '__dot__'],
  ['-', '__dash__'],
  ['/', '__slash__'],
];

/** The CEL field name for a schema property, or undefined when the property cannot be named. */
export function escapePropertyName(name: string): string | undefined {
  if (RESERVED_WORDS.has(name)) return `__${name}__`;
  if (!ESCAPABLE.test(name)) return undefined;
  let escaped = '';
  let i = 0;
  scan: while (i < name.length) {
    for (const [raw, replacement] of ESCAPES) {
      if (name.startsWith(raw, i)) {
        escaped += replacement;
        i += raw.length;
        continue scan;
      }
    }
    escaped += name[i];
    i += 1;
  }
  return escaped;
}
