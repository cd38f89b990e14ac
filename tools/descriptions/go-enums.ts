/**
 * The "Possible enum values:" sections the reference's OpenAPI generator (kube-openapi's
 * enum.go) appends to the description of a field whose Go type is an enum: a string type whose
 * doc comment holds `+enum`. Each constant of that type gives a line `` - `"<value>"` <its doc
 * comment, less the constant's name, whitespace collapsed>``, one per value (of constants sharing
 * a value, the one with the longer comment), the lines sorted. Read from the Go sources of the
 * API's packages, line by line: gofmt'ed code is regular enough for that.
 *
 * An enum type that another package re-exports by a type alias (admissionregistration v1beta1's
 * `ReinvocationPolicyType = v1.ReinvocationPolicyType`) has no section in the reference's
 * documents, nor `enum`; it gets none here either.
 */

/** One Go source file: its package's import path and its text. */
export interface GoFile {
  readonly packagePath: string;
  readonly source: string;
}

export interface GoEnums {
  /** `<package path>.<type>` of every enum type → the lines of its section, sorted. */
  readonly sections: ReadonlyMap<string, readonly string[]>;
  /** `<package path>.<struct>` → JSON field name → `<package path>.<type>` of the field. */
  readonly fieldTypes: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /**
   * `<package path>.<struct>` → `<package path>.<type>` of each struct it embeds inline, whose
   * fields are its own in JSON. Read in the same pass over the structs, for the descriptions.
   */
  readonly embedded: ReadonlyMap<string, readonly string[]>;
}

interface EnumValue {
  readonly value: string;
  readonly comment: string;
  readonly name: string;
}

/** A constant as written: its value, or the constant it converts (`AddressType(v1.IPv4Protocol)`). */
interface Constant {
  readonly key: string;
  readonly name: string;
  readonly type?: string;
  readonly value?: string;
  readonly copies?: string;
  readonly comment: string;
}

const IMPORT_LINE = /^\s*(?:(\w+)\s+)?"([^"]+)"\s*$/;
const ENUM_TYPE = /^type (\w+) string\b/;
/** `Name Type = "value"`, `Name = "value"`, `Name = Type("value")` or `Name = Type(pkg.Other)`. */
const CONSTANT =
  /^\s*(?:const\s+)?(\w+)(?:\s+([\w.]+))?\s*=\s*(?:([\w.]+)\()?(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_][\w.]*))\)?\s*(?:\/\/.*)?$/;
const ALIAS = /^type \w+ = (\w+\.\w+)/;
const STRUCT_START = /^type (\w+) struct \{/;
/** A field of a direct or pointer type, with its JSON name. Slices and maps get no section. */
const FIELD = /^\s+\w+\s+\*?([\w.]+)\s+`[^`]*json:"([^",]*)/;
/** A struct embedded without a name, its fields inlined in JSON. */
const INLINE_FIELD = /^\s+\*?([\w.]+)\s+`[^`]*json:",inline"/;

export function goEnums(files: readonly GoFile[]): GoEnums {
  const found: Found = {
    enumTypes: new Set(),
    constants: [],
    aliased: new Set(),
    fieldTypes: new Map(),
    embedded: new Map(),
  };
  for (const file of files) readFile(file, found);
  const enumTypes = new Set([...found.enumTypes].filter((type) => !found.aliased.has(type)));
  const byKey = new Map(found.constants.map((constant) => [constant.key, constant]));
  const valueOf = (constant: Constant | undefined): string | undefined =>
    constant === undefined ? undefined : (constant.value ?? valueOf(byKey.get(constant.copies ?? '')));
  const values = new Map<string, EnumValue[]>();
  for (const constant of found.constants) {
    const value = valueOf(constant);
    if (constant.type !== undefined && enumTypes.has(constant.type) && value !== undefined)
      addValue(values, constant.type, { name: constant.name, value, comment: constant.comment });
  }
  const sections = new Map<string, readonly string[]>();
  for (const [type, typeValues] of values) {
    // Sorted as written, then trimmed: a value without a comment ends its line there.
    sections.set(
      type,
      typeValues
        .map(sectionLine)
        .sort()
        .map((line) => line.trimEnd()),
    );
  }
  const fieldTypes = found.fieldTypes;
  for (const [struct, fields] of fieldTypes) {
    for (const [field, type] of fields) if (!sections.has(type)) fields.delete(field);
    if (fields.size === 0) fieldTypes.delete(struct);
  }
  return { sections, fieldTypes, embedded: found.embedded };
}

/**
 * The comment lines the reference's generator adds to a field's own before it makes the
 * description of them (go-doc-comments.ts): a paragraph, then the section. Added to the lines
 * rather than to the finished text, a comment that ends in an empty line before its markers
 * leaves one newline more before the section, as in the reference's documents.
 */
export function enumSectionLines(lines: readonly string[]): string[] {
  return ['', 'Possible enum values:', ...lines];
}

function sectionLine({ name, value, comment }: EnumValue): string {
  const text = comment.trim();
  const described = (text.startsWith(name) ? text.slice(name.length) : text).trim().replace(/\s+/g, ' ');
  return ` - \`${JSON.stringify(value)}\` ${described}`;
}

/** What the files declare, before constants are resolved to values. */
interface Found {
  readonly enumTypes: Set<string>;
  readonly constants: Constant[];
  /** Types another package names in a type alias. */
  readonly aliased: Set<string>;
  readonly fieldTypes: Map<string, Map<string, string>>;
  readonly embedded: Map<string, string[]>;
}

function readFile({ packagePath, source }: GoFile, into: Found): void {
  const imports = new Map<string, string>();
  const resolve = (type: string) => {
    const dot = type.indexOf('.');
    if (dot < 0) return `${packagePath}.${type}`;
    const imported = imports.get(type.slice(0, dot));
    return imported === undefined ? undefined : `${imported}.${type.slice(dot + 1)}`;
  };
  let comment: string[] = [];
  let block: 'import' | 'const' | 'struct' | undefined;
  let struct: Map<string, string> | undefined;
  let embedded: string[] = [];
  for (const line of source.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('//')) {
      comment.push(trimmed.replace(/^\/\/\s?/, ''));
      continue;
    }
    const doc = comment;
    comment = [];
    if (block === 'import') {
      if (trimmed === ')') block = undefined;
      else addImport(imports, trimmed);
      continue;
    }
    if (block === 'struct') {
      if (line === '}') block = undefined;
      const field = FIELD.exec(line);
      const type = field === null ? undefined : resolve(field[1]);
      if (field !== null && type !== undefined && field[2] !== '' && field[2] !== '-') struct!.set(field[2], type);
      const inline = INLINE_FIELD.exec(line);
      const inlined = inline === null ? undefined : resolve(inline[1]);
      if (inlined !== undefined) embedded.push(inlined);
      continue;
    }
    if (block === 'const' && trimmed === ')') {
      block = undefined;
      continue;
    }
    if (trimmed === 'import (') block = 'import';
    else if (trimmed.startsWith('import "')) addImport(imports, trimmed.slice('import '.length));
    else if (trimmed === 'const (') block = 'const';
    else if (ALIAS.test(line)) {
      const target = resolve(ALIAS.exec(line)![1]);
      if (target !== undefined) into.aliased.add(target);
    } else if (ENUM_TYPE.test(line) && doc.some((text) => /^\+enum\b/.test(text)))
      into.enumTypes.add(`${packagePath}.${ENUM_TYPE.exec(line)![1]}`);
    else if (STRUCT_START.test(line)) {
      block = 'struct';
      struct = new Map();
      embedded = [];
      const name = `${packagePath}.${STRUCT_START.exec(line)![1]}`;
      into.fieldTypes.set(name, struct);
      into.embedded.set(name, embedded);
    }
    const constant = (block === 'const' || trimmed.startsWith('const ')) && CONSTANT.exec(line);
    if (constant) {
      const [, name, declared, converted, literal, other] = constant;
      const typeName = declared ?? converted;
      into.constants.push({
        key: `${packagePath}.${name}`,
        name,
        type: typeName === undefined ? undefined : resolve(typeName),
        value: literal === undefined ? undefined : goString(literal),
        copies: other === undefined ? undefined : resolve(other),
        comment: doc.join(' '),
      });
    }
  }
}

function addImport(imports: Map<string, string>, line: string): void {
  const match = IMPORT_LINE.exec(line);
  if (match === null) return;
  const path = match[2];
  imports.set(match[1] ?? path.slice(path.lastIndexOf('/') + 1), path);
}

/** As kube-openapi keeps one constant per value: the one with the longer comment, else the greater. */
function addValue(values: Map<string, EnumValue[]>, type: string, value: EnumValue): void {
  const list = values.get(type) ?? [];
  values.set(type, list);
  const index = list.findIndex((existing) => existing.value === value.value);
  if (index < 0) list.push(value);
  else {
    const existing = list[index];
    if (
      existing.comment.length < value.comment.length ||
      (existing.comment.length === value.comment.length && existing.comment > value.comment)
    )
      list[index] = value;
  }
}

function goString(literal: string): string {
  return JSON.parse(`"${literal}"`) as string;
}
