/**
 * A YAML body as the reference reads it: sigs.k8s.io/yaml unmarshals it with yaml.v2 into Go
 * values, turns their map keys into JSON member names, and marshals the result to JSON.
 *
 * yaml.v2 resolves a plain (unquoted, untagged) scalar by YAML 1.1's rules as Go parses them:
 * `yes`, `on`, `y` are true; `~` and the empty scalar are null; `010` is octal, `0b1` binary and
 * underscores are dropped from numbers (the YAML library's 1.1 schema differs: it reads `1:20`
 * as sexagesimal and `2001-12-14` as a date, which yaml.v2 keeps as text). The library parses
 * with every scalar as text; the decoding below resolves plain ones and is yaml.v2's: `<<`
 * merges, aliases under its bound, keys set again (strict decoding's errors). Then, as
 * sigs.k8s.io/yaml does, keys become names (an int in decimal, a float as Go's 32-bit `%g`, a
 * bool as `true`/`false`), and null or uint64 keys, collections as keys and infinite or NaN
 * numbers are refused with the reference's words.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  Scalar,
  visit,
  type Alias,
  type Document,
  type Node,
  type ScalarTag,
  type YAMLError,
  type YAMLMap,
} from 'yaml';
import { goFormatFloat } from '../../api/go-number';
import { goQuote } from '../../api/go-quote';
import { NumberLiteral, plainNumbers } from './number-literal';
import { MAX_NESTING_DEPTH, tooDeep } from '../request/nesting';

/** What yaml.v2 makes of a scalar, as the Go value it decodes into an interface{}. */
export type GoYamlScalar =
  | { readonly kind: 'null' }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'uint64'; readonly value: bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string };

const NULL: GoYamlScalar = { kind: 'null' };
const BOOLS: Readonly<Record<string, boolean>> = Object.fromEntries([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE'].map((text) => [text, true]),
  ...['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE'].map((text) => [text, false]),
]);
const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const SPECIAL_FLOATS: Readonly<Record<string, number>> = Object.fromEntries([
  ...['.nan', '.NaN', '.NAN'].map((text) => [text, NaN]),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((text) => [text, Infinity]),
  ...['-.inf', '-.Inf', '-.INF'].map((text) => [text, -Infinity]),
]);
/** yaml.v2 tries a number only for texts starting so; its table of words starts with these too. */
const MAY_RESOLVE = /^(?:$|[-+.0-9~yYnNtTfFoO])/;
/** yaml.v2's `yamlStyleFloat`: the float forms it passes on to Go's ParseFloat. */
const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const DIGITS: Readonly<Record<number, RegExp>> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };
const RADIX_PREFIX: Readonly<Record<number, string>> = { 2: '0b', 8: '0o', 10: '', 16: '0x' };

/** Go's strconv.ParseInt(text, 0, ...) before its range check: sign, base prefix (`0x`, `0o`, `0b`, a leading `0`), digits. */
export function parseGoInteger(text: string): { value: bigint; signed: boolean } | undefined {
  const signed = text.startsWith('+') || text.startsWith('-');
  let digits = signed ? text.slice(1) : text;
  let base = 10;
  if (digits.length > 1 && digits[0] === '0') {
    const prefix = digits[1].toLowerCase();
    base = prefix === 'x' ? 16 : prefix === 'b' ? 2 : 8;
    digits = digits.slice(prefix === 'x' || prefix === 'b' || prefix === 'o' ? 2 : 1);
  }
  if (!DIGITS[base].test(digits)) return undefined;
  const magnitude = BigInt(RADIX_PREFIX[base] + digits);
  return { value: text.startsWith('-') ? -magnitude : magnitude, signed };
}

/** yaml.v2's `resolve` of a plain scalar. */
export function resolvePlainScalar(text: string): GoYamlScalar {
  if (!MAY_RESOLVE.test(text)) return { kind: 'string', value: text };
  if (NULLS.has(text)) return NULL;
  if (text in BOOLS) return { kind: 'bool', value: BOOLS[text] };
  if (text in SPECIAL_FLOATS) return { kind: 'float', value: SPECIAL_FLOATS[text] };
  if (text.startsWith('.')) {
    // Go's ParseFloat of what starts with a dot: a fraction, perhaps with an exponent.
    if (/^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/.test(text)) return { kind: 'float', value: Number(text) };
    return { kind: 'string', value: text };
  }
  if (!/^[-+0-9]/.test(text)) return { kind: 'string', value: text };
  const plain = text.replaceAll('_', '');
  const integer = parseGoInteger(plain);
  if (integer !== undefined && integer.value >= INT64_MIN && integer.value <= INT64_MAX)
    return { kind: 'int', value: integer.value };
  if (integer !== undefined && !integer.signed && integer.value <= UINT64_MAX)
    return { kind: 'uint64', value: integer.value };
  // ParseFloat refuses what overflows a float64, and the text is then kept.
  if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) return { kind: 'float', value: Number(plain) };
  return { kind: 'string', value: text };
}

/**
 * The scalar's Go value in a decoded body: a plain untagged one resolved, any other (quoted,
 * block, `!!str`, `!!binary`) the text the YAML library composed.
 */
function goScalarOf(node: Scalar): GoYamlScalar {
  if (node.type === Scalar.PLAIN && node.tag === undefined && typeof node.source === 'string')
    return resolvePlainScalar(node.source);
  return { kind: 'string', value: String(node.value) };
}

/** The JSON value sigs.k8s.io/yaml marshals the Go value to, as this project's decoder holds JSON numbers. */
function jsonValueOf(scalar: GoYamlScalar): unknown {
  switch (scalar.kind) {
    case 'null':
      return null;
    case 'int':
    case 'uint64':
      return scalar.value >= BigInt(Number.MIN_SAFE_INTEGER) && scalar.value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(scalar.value)
        : new NumberLiteral(String(scalar.value));
    case 'float':
      // Go's encoding/json prints a float64 as JavaScript does; whole ones then read as integers.
      return Number.isSafeInteger(scalar.value) || !Number.isFinite(scalar.value)
        ? scalar.value
        : new NumberLiteral(String(scalar.value));
    default:
      return scalar.value;
  }
}

/** `!!binary`: yaml.v2 decodes the base64 into a Go string of those bytes, which JSON carries as UTF-8 text. */
const BINARY_AS_TEXT: ScalarTag = {
  tag: 'tag:yaml.org,2002:binary',
  default: false,
  resolve: (text) => Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8'),
};

/** A YAML text's documents as the library parses them, with the line of every offset. */
export interface GoYamlText {
  readonly documents: readonly Document.Parsed[];
  readonly lines: LineCounter;
}

/** A `%YAML 1.x` directive line, which yaml.v2 takes anywhere at the start of a line. */
const YAML_DIRECTIVE = /^%YAML[ \t]+1\.[0-9]+[ \t]*(?:#.*)?$/m;
/** A line that is content: not blank, a comment, a directive or a document marker alone. */
const CONTENT_LINE = /^(?![ \t]*(?:#.*)?$)(?!%)(?!(?:---|\.\.\.)[ \t]*(?:#.*)?$).+$/m;

/**
 * The text up to a `%YAML` directive that follows content: yaml.v2 ends the document there and
 * sigs.k8s.io/yaml reads no further, where the YAML library refuses the directive inside a
 * document. A directive before any content is the library's to read, as it is yaml.v2's.
 */
function beforeDirectiveAfterContent(text: string): string {
  const directive = YAML_DIRECTIVE.exec(text);
  if (directive === null) return text;
  const before = text.slice(0, directive.index);
  return CONTENT_LINE.test(before) ? before : text;
}

/** Parses the text's documents; merges and repeated keys are decoding's business (goYamlToJSON). */
export function parseGoYaml(text: string): GoYamlText {
  const lines = new LineCounter();
  const parsed = parseAllDocuments(beforeDirectiveAfterContent(text), {
    schema: 'failsafe',
    customTags: [BINARY_AS_TEXT],
    merge: false,
    uniqueKeys: false,
    lineCounter: lines,
  });
  return { documents: Array.isArray(parsed) ? parsed : [parsed], lines };
}

/** A value the reference refuses while turning the YAML into JSON, with its words. */
export class GoYamlConversionError extends Error {}

/** A text the YAML library cannot parse: its first error, which callers word as the reference's syntax errors. */
export class GoYamlSyntaxError extends Error {
  constructor(readonly error: YAMLError) {
    super(error.message);
  }
}

/** A Go map[interface{}]interface{}: entries by their key's identity (kind and value). */
type GoMap = Map<string, { readonly key: GoYamlScalar; readonly value: GoYamlValue }>;
/** What yaml.v2 decodes a node into an interface{} as. */
type GoYamlValue = GoYamlScalar | GoYamlValue[] | GoMap;

function identityOf(key: GoYamlScalar): string {
  return key.kind === 'null' ? 'null' : `${key.kind}:${String(key.value)}`;
}

/** yaml.v2's bounds on alias expansion: past 100 expansions and 1,000 nodes, a share of them that shrinks as documents grow. */
function allowedAliasShare(decoded: number): number {
  const [low, high] = [400_000, 4_000_000];
  if (decoded <= low) return 0.99;
  if (decoded >= high) return 0.1;
  return 0.99 - (0.89 * (decoded - low)) / (high - low);
}

/**
 * yaml.v2's decoding of a document into interface{} values: maps are merged into in document
 * order (a merge overwrites keys set before it, keys after it overwrite the merged ones, and
 * the maps of a merged list are taken last to first), and every key set again is one line of
 * strict decoding's error, at its value's line.
 */
class GoYamlDecoder {
  private decoded = 0;
  private expanded = 0;
  private aliasDepth = 0;
  private depth = 0;
  private readonly expanding = new Set<Alias>();
  readonly repeatedKeys: string[] = [];

  constructor(
    private readonly document: Document,
    private readonly lines: LineCounter,
  ) {}

  /** One node decoded (yaml.v2's `unmarshal`), under its bound on aliasing. */
  private count(): void {
    this.decoded++;
    if (this.aliasDepth > 0) this.expanded++;
    if (this.expanded > 100 && this.decoded > 1000 && this.expanded / this.decoded > allowedAliasShare(this.decoded))
      throw new GoYamlConversionError('yaml: document contains excessive aliasing');
  }

  private throughAlias<T>(alias: Alias, decode: (target: Node) => T): T {
    if (this.expanding.has(alias))
      throw new GoYamlConversionError(`yaml: anchor '${alias.source}' value contains itself`);
    this.expanding.add(alias);
    this.aliasDepth++;
    try {
      return decode(alias.resolve(this.document) as Node);
    } finally {
      this.aliasDepth--;
      this.expanding.delete(alias);
    }
  }

  value(node: unknown): GoYamlValue {
    this.count();
    if (isAlias(node)) return this.throughAlias(node, (target) => this.value(target));
    if (isScalar(node)) return goScalarOf(node);
    if (!isSeq(node) && !isMap(node)) return NULL; // an empty node
    // Bounded here, before anything walks the value recursively (this decoder first).
    if (++this.depth > MAX_NESTING_DEPTH) throw tooDeep('yaml');
    let value: GoYamlValue;
    if (isSeq(node)) value = node.items.map((item) => this.value(item));
    else this.mapping(node, (value = new Map()));
    this.depth--;
    return value;
  }

  private mapping(node: YAMLMap, into: GoMap): void {
    for (const pair of node.items) {
      if (isScalar(pair.key) && pair.key.type === Scalar.PLAIN && pair.key.source === '<<') {
        this.merge(pair.value, into);
        continue;
      }
      const key = this.value(pair.key);
      if (Array.isArray(key) || key instanceof Map)
        throw new GoYamlConversionError(`yaml: invalid map key: ${goSharp(key, false)}`);
      const value = this.value(pair.value);
      const identity = identityOf(key);
      if (into.has(identity)) {
        const at = (pair.value as Node | null)?.range?.[0] ?? (pair.key as Node | null)?.range?.[0] ?? 0;
        this.repeatedKeys.push(`line ${this.lines.linePos(at).line}: key ${goSharp(key, false)} already set in map`);
      }
      into.set(identity, { key, value });
    }
  }

  private merge(node: unknown, into: GoMap): void {
    const mergeable = (item: unknown): YAMLMap | Alias => {
      if (isMap(item) || (isAlias(item) && isMap(item.resolve(this.document)))) return item as YAMLMap | Alias;
      throw new GoYamlConversionError('yaml: map merge requires map or sequence of maps as the value');
    };
    const sources = isSeq(node) ? node.items.map(mergeable).reverse() : [mergeable(node)];
    for (const source of sources) {
      this.count();
      if (isAlias(source))
        this.throughAlias(source, (target) => {
          this.count();
          this.mapping(target as YAMLMap, into);
        });
      else this.mapping(source, into);
    }
  }
}

/** Go's `%#v` of the value inside an interface{} (nested: a nil is `interface {}(nil)`); map keys sorted as fmt sorts them. */
function goSharp(value: GoYamlValue, nested: boolean): string {
  if (Array.isArray(value)) return `[]interface {}{${value.map((item) => goSharp(item, true)).join(', ')}}`;
  if (value instanceof Map) {
    const entries = [...value.values()].sort((a, b) => compareKeys(a.key, b.key));
    return `map[interface {}]interface {}{${entries.map(({ key, value: member }) => `${goSharp(key, true)}:${goSharp(member, true)}`).join(', ')}}`;
  }
  switch (value.kind) {
    case 'null':
      return nested ? 'interface {}(nil)' : '<nil>';
    case 'uint64':
      return `0x${value.value.toString(16)}`;
    case 'float':
      return goFormatFloat(value.value, 64);
    case 'string':
      return goQuote(value.value);
    default:
      return String(value.value);
  }
}

/** Kinds in one fixed order for keys of mixed types (fmt orders those by an internal type address). */
const KIND_ORDER = ['null', 'bool', 'int', 'uint64', 'float', 'string'];

function compareKeys(a: GoYamlScalar, b: GoYamlScalar): number {
  if (a.kind !== b.kind) return KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
  if (a.kind === 'null' || b.kind === 'null') return 0;
  const [x, y] = [a.value, b.value];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** sigs.k8s.io/yaml's member name for a map key, or its refusal of the key (with the value it maps to). */
function jsonKeyOf(key: GoYamlScalar, value: GoYamlValue): string {
  switch (key.kind) {
    case 'string':
      return key.value;
    case 'bool':
    case 'int':
      return String(key.value);
    case 'float': {
      const text = goFormatFloat(key.value, 32);
      return text === '+Inf' ? '.inf' : text === '-Inf' ? '-.inf' : text === 'NaN' ? '.nan' : text;
    }
    default: {
      const type = key.kind === 'null' ? '%!s(<nil>)' : key.kind;
      throw new GoYamlConversionError(
        `unsupported map key of type: ${type}, key: ${goSharp(key, false)}, value: ${goSharp(value, false)}`,
      );
    }
  }
}

/**
 * The JSON value of a decoded value, members in the byte order Go's encoding/json writes them
 * in; each infinite or NaN number, which that encoder refuses, is added to `unsupported` in the
 * order it meets them.
 */
function jsonOf(value: GoYamlValue, unsupported: number[]): unknown {
  if (Array.isArray(value)) return value.map((item) => jsonOf(item, unsupported));
  if (!(value instanceof Map)) {
    if (value.kind === 'float' && !Number.isFinite(value.value)) unsupported.push(value.value);
    return jsonValueOf(value);
  }
  const members = [...value.values()]
    .map(({ key, value: member }) => [jsonKeyOf(key, member), member] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const object: Record<string, unknown> = {};
  // A defined property: `__proto__` is a member name like any other here.
  for (const [name, member] of members)
    Object.defineProperty(object, name, {
      value: jsonOf(member, unsupported),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return object;
}

export interface GoYamlReading {
  /** The JSON value the reference decodes the body as. */
  readonly value: unknown;
  /** Keys set again in a map, one line each as strict decoding reports them. */
  readonly repeatedKeys: readonly string[];
}

/**
 * A document as the reference reads it, in its order: aliases to no anchor (yaml.v2's parser
 * meets them first), then the library's syntax errors, then decoding (invalid keys, merges,
 * aliasing), the keys' conversion to member names, and numbers JSON cannot hold.
 */
export function goYamlToJSON(document: Document.Parsed, lines: LineCounter): GoYamlReading {
  visit(document, {
    Alias(_, alias) {
      if (alias.resolve(document) === undefined)
        throw new GoYamlConversionError(`yaml: unknown anchor '${alias.source}' referenced`);
    },
  });
  if (document.errors.length > 0) throw new GoYamlSyntaxError(document.errors[0]);
  const decoder = new GoYamlDecoder(document, lines);
  // Every key is converted (and may be refused) before the encoder meets a number it refuses.
  const unsupported: number[] = [];
  const value = jsonOf(decoder.value(document.contents), unsupported);
  if (unsupported.length > 0)
    throw new GoYamlConversionError(`json: unsupported value: ${goFormatFloat(unsupported[0], 64)}`);
  return { value, repeatedKeys: decoder.repeatedKeys };
}

/**
 * yaml.v2's words for the syntax errors the YAML library names otherwise, where both find the
 * same fault. yaml.v2 prints a scanner error at the line it was on, and a parser error at its
 * mark's line counted from zero: one before the line it stopped on (`lineBefore`).
 */
const GO_YAML_SYNTAX_WORDS: readonly {
  readonly library: RegExp;
  readonly words: string;
  readonly lineBefore: boolean;
}[] = [
  { library: /^All mapping items must start at the same column/, words: 'did not find expected key', lineBefore: true },
  // The YAML library composes nested collections recursively and runs out of stack some 800 flow
  // levels down, short of the bound on parsed values (request/nesting.ts): a refusal of depth in
  // yaml.v3's words, without the count its own limit (10,000) names.
  { library: /^Maximum call stack size exceeded/, words: 'exceeded max depth', lineBefore: false },
  {
    library: /^A block sequence may not be used as an implicit map key/,
    words: 'did not find expected key',
    lineBefore: true,
  },
  {
    library: /^Flow sequence in block collection must be/,
    words: "did not find expected ',' or ']'",
    lineBefore: true,
  },
  { library: /^Flow map in block collection must be/, words: "did not find expected ',' or '}'", lineBefore: true },
  { library: /^Unexpected flow-(seq|map)-end token/, words: 'did not find expected node content', lineBefore: true },
  {
    library: /^Tabs are not allowed as indentation/,
    words: 'found character that cannot start any token',
    lineBefore: false,
  },
  {
    library: /^Plain value cannot start with reserved character/,
    words: 'found character that cannot start any token',
    lineBefore: false,
  },
  {
    library: /^Nested mappings are not allowed in compact mappings/,
    words: 'mapping values are not allowed in this context',
    lineBefore: false,
  },
  { library: /^Invalid escape sequence/, words: 'found unknown escape character', lineBefore: false },
  {
    library: /^Anchor cannot be an empty string/,
    words: 'did not find expected alphabetic or numeric character',
    lineBefore: false,
  },
];

/** The line (from 1) the offset is on. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index >= 0 && index < offset; index = text.indexOf('\n', index + 1)) line++;
  return line;
}

/** Where the next token starts after the offset: past blanks, line breaks and comments. */
function nextTokenAt(text: string, offset: number): number {
  const rest = /^(?:[ \t\r\n]|#[^\n]*)*/.exec(text.slice(offset))!;
  return offset + rest[0].length;
}

/**
 * Where yaml.v2's scanner ends a quoted scalar that starts before `from`: past the closing quote
 * (a `\"` escape or a `''` pair goes on), or undefined when the text ends first.
 */
function closingQuoteEnd(text: string, from: number, quote: string): number | undefined {
  for (let index = from; index < text.length; index++) {
    if (quote === '"' && text[index] === '\\') index++;
    else if (text[index] === quote) {
      if (quote === "'" && text[index + 1] === "'") index++;
      else return index + 1;
    }
  }
  return undefined;
}

/**
 * yaml.v2's error where the YAML library stops elsewhere or sees another fault: undefined when
 * they agree. A key the library finds without its `:` is yaml.v2's required simple key gone
 * stale, found at the next token; a key over two lines is a plain scalar that goes on to the
 * `:` after it, not allowed there; a quote the library finds unclosed yaml.v2 closes further
 * on, or scans to the end of the text for.
 */
function goYamlFault(error: YAMLError, message: string, text: string): { line: number; words: string } | undefined {
  const [start, end] = error.pos;
  if (/^Implicit map keys need to be followed by map values/.test(message))
    return { line: lineAt(text, nextTokenAt(text, end)), words: "could not find expected ':'" };
  if (/^Implicit keys need to be on a single line/.test(message))
    return { line: lineAt(text, end), words: 'mapping values are not allowed in this context' };
  const quote = /^Missing closing (["'])quote/.exec(message)?.[1];
  if (quote === undefined) return undefined;
  const closed = closingQuoteEnd(text, start, quote);
  if (closed === undefined) return { line: lineAt(text, text.length), words: 'found unexpected end of stream' };
  // Something on the line after the scalar: the parser wanted the next key, and names its line from zero.
  const after = /^[ \t]*([^ \t\r\n#:])/.exec(text.slice(closed));
  if (after !== null) return { line: lineAt(text, closed) - 1, words: 'did not find expected key' };
  return undefined;
}

/**
 * sigs.k8s.io/yaml's words for a YAML syntax error in the text: yaml.v2's where the fault is
 * one it names alike or finds elsewhere (goYamlFault), else the first line of the YAML
 * library's message, at its line.
 */
export function goYamlSyntaxMessage(error: YAMLError, text: string): string {
  const message = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  const fault = goYamlFault(error, message, text);
  if (fault !== undefined) return `yaml: line ${fault.line}: ${fault.words}`;
  const line = error.linePos?.[0]?.line;
  const known = GO_YAML_SYNTAX_WORDS.find((entry) => entry.library.test(message));
  const shown = line !== undefined && known?.lineBefore ? line - 1 : line;
  return `yaml: ${shown === undefined || shown === 0 ? '' : `line ${shown}: `}${known?.words ?? message}`;
}

/**
 * A configuration file as the reference's YAML serializer reads it: sigs.k8s.io/yaml's
 * YAMLToJSON of the whole text takes its first document (an empty text, or one of comments
 * only, is null), and the readers take any JSON number. Throws GoYamlConversionError with the
 * reference's words for what it refuses, syntax errors included; keys set again are for a
 * strict reader to refuse (strictDecodingError).
 */
export function readGoYamlText(text: string): GoYamlReading {
  const { documents, lines } = parseGoYaml(text);
  if (documents.length === 0) return { value: null, repeatedKeys: [] };
  try {
    const { value, repeatedKeys } = goYamlToJSON(documents[0], lines);
    return { value: plainNumbers(value), repeatedKeys };
  } catch (error) {
    if (error instanceof GoYamlSyntaxError) throw new GoYamlConversionError(goYamlSyntaxMessage(error.error, text));
    throw error;
  }
}

/**
 * A strict decoder's refusal, in the reference's words: the keys the text sets again, then the
 * fields its types do not have; undefined when there is neither.
 */
export function strictDecodingError(
  reading: GoYamlReading,
  unknownFields: readonly string[] = [],
): GoYamlConversionError | undefined {
  const problems = [
    ...(reading.repeatedKeys.length > 0 ? [`yaml: unmarshal errors:\n  ${reading.repeatedKeys.join('\n  ')}`] : []),
    ...unknownFields.map((field) => `unknown field ${goQuote(field)}`),
  ];
  return problems.length === 0 ? undefined : new GoYamlConversionError(`strict decoding error: ${problems.join(', ')}`);
}
