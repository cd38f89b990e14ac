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
  return (
    splitUnescaped(input, ',')
      .sort()
      .filter((term) => term !== '')
      .map((term) => parseTerm(term, input))
      // A term with neither field nor value (`==`, `!=`) selects everything: the reference's parse
      // drops it before any field label is checked.
      .filter((requirement) => requirement.field !== '' || requirement.value !== '')
  );
}

const METADATA_FIELDS: SelectableFields = {
  'metadata.name': (object) => object.metadata?.name,
  'metadata.namespace': (object) => object.metadata?.namespace,
};

/** `metadata.name` and `metadata.namespace`: the fields every kind selects on, the same in every version. */
export function isMetadataField(field: string): boolean {
  return field in METADATA_FIELDS;
}

/**
 * The reference's field label conversion of a served kind: which labels a selector may use, the
 * selectable field each reads, and its words for any other. A kind without its own
 * (`fieldLabelsOf`) takes metadata.name, metadata.namespace and its selectable fields.
 */
export interface FieldLabels {
  /** Each label a request may use, and the field it reads (events.k8s.io's `regarding.name`: `involvedObject.name`). */
  readonly accepted: ReadonlyMap<string, string>;
  /** Why `label` is refused, in the reference's words for the kind as served in `version`. */
  refusal(label: string, version: string): string;
}

/** The conversions that follow from each kind's selectable fields, made once: every list and watch asks. */
const derivedFieldLabels = new WeakMap<SelectableFields, FieldLabels>();

/** A kind's field label conversion as declared, or the one that follows from its selectable fields. */
export function fieldLabelsOf(declared: FieldLabels | undefined, selectableFields: SelectableFields): FieldLabels {
  if (declared !== undefined) return declared;
  let derived = derivedFieldLabels.get(selectableFields);
  if (derived === undefined) {
    derived = fieldLabelsFrom(selectableFields);
    derivedFieldLabels.set(selectableFields, derived);
  }
  return derived;
}

/** metadata.name, metadata.namespace and the selectable fields, refused in the words that fit. */
function fieldLabelsFrom(selectableFields: SelectableFields): FieldLabels {
  const labels = [...Object.keys(METADATA_FIELDS), ...Object.keys(selectableFields)];
  const accepted = new Map(labels.map((label) => [label, label]));
  // Kinds that declare fields of their own convert labels with the reference's shorter words.
  const custom = Object.keys(selectableFields).length > 0;
  return {
    accepted,
    refusal: (label) =>
      custom
        ? `field label not supported: ${label}`
        : `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
  };
}

/**
 * A custom resource's labels, as the reference's converter for custom resources takes them in a
 * version: metadata.name, metadata.namespace where the kind is namespaced, and the version's
 * selectable fields; any other is refused in the same words, selectable fields or none.
 */
export function customResourceFieldLabels(selectableFields: SelectableFields, namespaced: boolean): FieldLabels {
  const labels = ['metadata.name', ...(namespaced ? ['metadata.namespace'] : []), ...Object.keys(selectableFields)];
  return {
    accepted: new Map(labels.map((label) => [label, label])),
    refusal: (label) => `field label not supported: ${label}`,
  };
}

/**
 * The requirements with each label converted to the field it reads; throws the reference's text
 * for a label the kind does not take.
 */
export function convertFieldLabels(
  requirements: readonly FieldRequirement[],
  labels: FieldLabels,
  version: string,
): FieldRequirement[] {
  return requirements.map((requirement) => {
    const field = labels.accepted.get(requirement.field);
    if (field === undefined) throw new SelectorParseError(labels.refusal(requirement.field, version));
    return field === requirement.field ? requirement : { ...requirement, field };
  });
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
