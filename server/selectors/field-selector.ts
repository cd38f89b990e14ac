/**
 * Field selectors: `field=value`, `field==value`, `field!=value`, joined by `,`, with `\`
 * escaping `,`, `=` and `!` in values as the reference does. Only the fields a type declares
 * are selectable (metadata.name, metadata.namespace, plus its `selectableFields`).
 */
import type { KubeObject } from '../../api/objects';
import { goQuote } from '../../api/go-quote';
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

/**
 * The reference's UnescapeValue: `\\`, `\,` and `\=` are the only escapes, and an unescaped `=`
 * (a `,` split the terms already) is refused with its code point, as Go's `%v` of a rune prints it.
 */
function unescapeValue(value: string): string {
  let out = '';
  let escaping = false;
  for (const c of value) {
    if (escaping) {
      if (c !== '\\' && c !== ',' && c !== '=')
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      escaping = false;
    } else if (c === '\\') escaping = true;
    else if (c === ',' || c === '=')
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (escaping) throw new SelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}

const TERM_OPERATORS = [
  ['!=', '!='],
  ['==', '='],
  ['=', '='],
] as const;

/** A term split at the first place any operator starts (`!=` before `==` before `=`), its field taken as written. */
function parseTerm(term: string, selector: string): FieldRequirement {
  for (let at = 0; at < term.length; at++) {
    for (const [token, operator] of TERM_OPERATORS) {
      if (term.startsWith(token, at))
        return { field: term.slice(0, at), operator, value: unescapeValue(term.slice(at + token.length)) };
    }
  }
  throw new SelectorParseError(`invalid selector: '${selector}'; can't understand '${term}'`);
}

/** Terms in sorted order, as the reference parses and checks them: the first bad one in that order is reported. */
export function parseFieldSelector(input: string): FieldRequirement[] {
  return splitUnescaped(input, ',')
    .sort()
    .filter((term) => term !== '')
    .map((term) => parseTerm(term, input));
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
        : `${goQuote(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
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
