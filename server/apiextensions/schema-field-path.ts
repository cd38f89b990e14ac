/**
 * The reference's reading of a field path into a schema (`.spec.size`, `.labels['a.b']`): what
 * a validation rule's fieldPath and a selectable field's jsonPath must be. Each step is a `.`
 * and a name, or a single-quoted name in brackets; a step names a property where the node
 * declares properties, else a key of its additionalProperties, and no other node has steps.
 */
import type { JSONSchemaProps } from './crd-types';

export interface SchemaFieldStep {
  readonly name: string;
  /** A property; false for a key of additionalProperties (shown as `[key]` in a field path). */
  readonly named: boolean;
}

export type SchemaFieldPath =
  | { readonly steps: readonly SchemaFieldStep[]; readonly schema: JSONSchemaProps | undefined }
  | { readonly error: string };

const DELIMITERS = '.[]';

/** The path cut as the reference's scanner cuts it: delimiters alone, a quoted name whole, the text between. */
function tokensOf(path: string): string[] {
  const tokens: string[] = [];
  let at = 0;
  while (at < path.length) {
    let end = at + 1;
    if (path[at] === "'") {
      while (end < path.length && !(path[end] === "'" && path[end - 1] !== '\\')) end++;
      end++;
    } else if (!DELIMITERS.includes(path[at])) {
      while (end < path.length && !DELIMITERS.includes(path[end])) end++;
    }
    tokens.push(path.slice(at, end));
    at = end;
  }
  return tokens;
}

const ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  "'": "'",
  '\\': '\\',
};

function unescapeSingleQuoted(text: string): string | { error: string } {
  let error: string | undefined;
  const unescaped = text.replace(/\\[\s\S]/g, (escape) => {
    const replacement = ESCAPES[escape[1]];
    if (replacement === undefined) error ??= `invalid escape char ${escape}`;
    return replacement ?? '';
  });
  return error === undefined ? unescaped : { error };
}

export function schemaFieldPath(
  path: string,
  root: JSONSchemaProps,
  options: { readonly allowArrayNotation: boolean },
): SchemaFieldPath {
  const tokens = tokensOf(path);
  const steps: SchemaFieldStep[] = [];
  let schema: JSONSchemaProps | undefined = root;
  const step = (name: string): string | undefined => {
    if (schema?.properties !== undefined) {
      steps.push({ name, named: true });
      schema = schema.properties[name];
      return schema === undefined ? 'does not refer to a valid field' : undefined;
    }
    if (schema?.additionalProperties !== undefined && schema.additionalProperties !== false) {
      steps.push({ name, named: false });
      schema = schema.additionalProperties === true ? undefined : schema.additionalProperties;
      return undefined;
    }
    return 'does not refer to a valid field';
  };
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index];
    if (token === '.') {
      if (++index >= tokens.length) return { error: 'unexpected end of JSON path' };
      const error = step(tokens[index]);
      if (error !== undefined) return { error };
    } else if (token === '[') {
      if (!options.allowArrayNotation) return { error: 'array notation is not allowed' };
      if (++index >= tokens.length) return { error: 'unexpected end of JSON path' };
      const quoted = tokens[index];
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'"))
        return { error: `expected single quoted string but got ${quoted}` };
      const name = unescapeSingleQuoted(quoted.slice(1, -1));
      if (typeof name !== 'string') return { error: `invalid string literal: ${name.error}` };
      const error = step(name);
      if (error !== undefined) return { error };
      if (++index >= tokens.length) return { error: 'unexpected end of JSON path' };
      if (tokens[index] !== ']') return { error: `expected ] but got ${tokens[index]}` };
    } else {
      return { error: `expected [ or . but got: ${token}` };
    }
  }
  return { steps, schema };
}
