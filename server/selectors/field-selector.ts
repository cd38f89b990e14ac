/**
 * Field selectors: `field=value`, `field==value`, `field!=value`, joined by `,`, with `\`
 * escaping `,`, `=` and `!` in values as the reference does. Only the fields a type declares
 * are selectable (metadata.name, metadata.namespace, plus its `selectableFields`).
 */
import type { KubeObject } from '../../api/objects';
import { SelectorParseError } from './label-selector';

/** A field selector key beyond metadata.name/metadata.namespace, and how to read it. */
export type SelectableFields = Readonly<Record<string, (object: KubeObject) => string | undefined>>;

export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** Splits on separators not preceded by a backslash, keeping escapes for the next stage. */
export function splitUnescaped(input: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c === '\\' && i + 1 < input.length) {
      current += c + input[i + 1];
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescapeValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\') {
      const n = value[i + 1];
      if (n === '\\' || n === ',' || n === '=' || n === '!') {
        out += n;
        i++;
        continue;
      }
      throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
    }
    if (c === ',' || c === '=') throw new SelectorParseError(`invalid field selector: unescaped ${c} in value`);
    out += c;
  }
  return out;
}

function parseTerm(term: string): FieldRequirement {
  for (const [token, operator] of [
    ['!=', '!='],
    ['==', '='],
    ['=', '='],
  ] as const) {
    const at = term.indexOf(token);
    if (at >= 0) {
      return { field: term.slice(0, at).trim(), operator, value: unescapeValue(term.slice(at + token.length)) };
    }
  }
  throw new SelectorParseError(`invalid selector: '${term}'; can't understand '${term}'`);
}

export function parseFieldSelector(input: string): FieldRequirement[] {
  if (input.trim() === '') return [];
  return splitUnescaped(input, ',').map(parseTerm);
}

const METADATA_FIELDS: SelectableFields = {
  'metadata.name': (object) => object.metadata?.name,
  'metadata.namespace': (object) => object.metadata?.namespace,
};

/** `metadata.name` and `metadata.namespace`: the fields every kind selects on, the same in every version. */
export function isMetadataField(field: string): boolean {
  return field in METADATA_FIELDS;
}

export interface FieldSelectorTarget {
  readonly selectableFields: SelectableFields;
  /** Types whose kinds declare their own fields answer with the shorter reference text. */
  readonly hasCustomFields: boolean;
}

/** Throws the reference's text when a requirement names a field the type cannot select on. */
export function checkSelectableFields(requirements: readonly FieldRequirement[], target: FieldSelectorTarget): void {
  for (const { field } of requirements) {
    if (field in METADATA_FIELDS || field in target.selectableFields) continue;
    throw new SelectorParseError(
      target.hasCustomFields
        ? `field label not supported: ${field}`
        : `${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
    );
  }
}

export function matchesFields(
  requirements: readonly FieldRequirement[],
  selectableFields: SelectableFields,
  object: KubeObject,
): boolean {
  return requirements.every(({ field, operator, value }) => {
    const read = METADATA_FIELDS[field] ?? selectableFields[field];
    const actual = read(object) ?? '';
    return operator === '=' ? actual === value : actual !== value;
  });
}
