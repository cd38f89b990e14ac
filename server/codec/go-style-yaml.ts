/**
 * YAML as the reference writes it (sigs.k8s.io/yaml marshals the object to JSON, reads that back
 * with yaml.v2 and has yaml.v2 print it): members sorted, sequences not indented under their
 * key, a number as yaml.v2 resolves its JSON text (an integer that fits an int64 or uint64 keeps
 * its digits, any other is a float64 printed by Go's shortest `%g`: `-1.5e-07`, `1e+20`), and
 * strings in the style yaml.v2 picks and folded where it folds them (yaml-v2-writer.ts): in
 * double quotes where its reader would resolve the plain text to something else (`yes`,
 * `0x1F`, a timestamp, a base-60 number; not `1e400`, which overflows). Written by walking the
 * value, so parts that decoded objects share (one managed-fields tree for many entries, one
 * `{}` for every empty leaf) are written out each time, never as anchors and aliases.
 */
import { goFormatFloat } from '../../api/go-number';
import { resolvePlainScalar } from '../validation/go-yaml';
import { BEST_INDENT, YamlV2Writer } from './yaml-v2-writer';

/** yaml.v2's timestamp forms (parseTimestamp's layouts), with Go's field ranges. */
const TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/;
/** yaml.v2's isBase60Float: YAML 1.1 sexagesimal numbers, which its encoder quotes. */
const BASE_60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

export function isTimestamp(text: string): boolean {
  const match = TIMESTAMP.exec(text);
  if (match === null) return false;
  const [month, day] = [Number(match[2]), Number(match[3])];
  const [hour, minute, second] = [match[4] ?? match[7], match[5] ?? match[8], match[6] ?? match[9]].map(Number);
  const daysInMonth = new Date(Date.UTC(Number(match[1]), month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    (match[4] === undefined && match[7] === undefined ? true : hour < 24 && minute < 60 && second < 60)
  );
}

/** Whether yaml.v2's encoder would not write the string plain because its reader resolves it otherwise. */
function resolvesAsOtherType(text: string): boolean {
  return resolvePlainScalar(text).kind !== 'string' || text === '<<' || isTimestamp(text) || BASE_60_FLOAT.test(text);
}

/**
 * A number as yaml.v2 writes what it read from its JSON text: an integer that fits an int64 or
 * uint64 keeps its digits, any other is a float64 printed by Go's shortest `%g`.
 */
function goNumberText(value: number): string {
  const json = JSON.stringify(value);
  const resolved = resolvePlainScalar(json);
  return resolved.kind === 'int' || resolved.kind === 'uint64' ? json : goFormatFloat(value, 64);
}

const MAX_SIMPLE_KEY_BYTES = 128;

/** Keys in the order yaml.v2 writes a map's string keys in (yamlV2KeyOrder). */
function sortedEntries(object: object): [string, unknown][] {
  return Object.entries(object)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => yamlV2KeyOrder(a, b));
}

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

/**
 * yaml.v2's order of string keys (its keyList.Less): character by character, where the first
 * difference is between letters the lower character first, a letter after anything else, and
 * otherwise the runs of digits from there compared as numbers ("9" before "10", "f:9" before
 * "f:10"), the shorter run first when they are equal; a key before the longer keys it starts.
 */
export function yamlV2KeyOrder(a: string, b: string): number {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const aLetter = LETTER.test(ar[i]);
    const bLetter = LETTER.test(br[i]);
    if (aLetter && bLetter) return ar[i].codePointAt(0)! - br[i].codePointAt(0)!;
    if (aLetter || bLetter) return aLetter ? 1 : -1;
    // A zero inside a run of digits that began with another digit counts: the runs are read after a 1.
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && DIGIT.test(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && DIGIT.test(ar[ai]); ai++) an = an * 10 + (ar[ai].codePointAt(0)! - 0x30);
    let bi = i;
    for (; bi < br.length && DIGIT.test(br[bi]); bi++) bn = bn * 10 + (br[bi].codePointAt(0)! - 0x30);
    if (an !== bn) return an - bn;
    if (ai !== bi) return ai - bi;
    return ar[i].codePointAt(0)! - br[i].codePointAt(0)!;
  }
  return ar.length - br.length;
}

function isEmptyCollection(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && value !== null && sortedEntries(value).length === 0;
}

function writeScalar(writer: YamlV2Writer, value: unknown, indent: number): void {
  if (typeof value === 'string')
    writer.writeString(value, { plainReadsBack: !resolvesAsOtherType(value), isKey: false, indent });
  else if (typeof value === 'number') writer.writePlainText(goNumberText(value));
  else if (typeof value === 'boolean') writer.writePlainText(String(value));
  else writer.writePlainText('null');
}

/** What JSON.stringify would write for the node (sigs.k8s.io/yaml prints the JSON of the object): a Date's text, say. */
function asJson(node: unknown): unknown {
  const toJSON = (node as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === 'function' ? (toJSON as () => unknown).call(node) : node;
}

/**
 * yaml.v2's yaml_emitter_check_simple_key for a string key: on one line and at most 128 bytes.
 * Any other is written as a complex key, `? key` and `: value` on lines of their own.
 */
function isSimpleKey(key: string): boolean {
  return Buffer.byteLength(key) <= MAX_SIMPLE_KEY_BYTES && !/[\r\n\u0085\u2028\u2029]/.test(key);
}

/**
 * A node in yaml.v2's block style. `indent` is the indent of the collection the node is in (a
 * mapping's keys, a sequence's dashes, -1 for the document); a sequence that is a mapping's value
 * is not indented under its key.
 */
function writeNode(writer: YamlV2Writer, node: unknown, indent: number, inMapping: boolean): void {
  const value = asJson(node);
  if (Array.isArray(value) && value.length > 0) {
    const own = inMapping ? indent : indent + BEST_INDENT;
    for (const item of value) {
      writer.writeIndent(own);
      writer.writeIndicator('-', { needWhitespace: true, isIndention: true });
      writeNode(writer, item, own, false);
    }
  } else if (typeof value === 'object' && value !== null && !isEmptyCollection(value)) {
    const own = indent + BEST_INDENT;
    for (const [key, item] of sortedEntries(value)) {
      writer.writeIndent(own);
      if (isSimpleKey(key)) {
        writer.writeString(key, { plainReadsBack: !resolvesAsOtherType(key), isKey: true, indent: own + BEST_INDENT });
        writer.writeIndicator(':');
      } else {
        writer.writeIndicator('?', { needWhitespace: true, isIndention: true });
        writeNode(writer, key, own, true);
        writer.writeIndent(own);
        writer.writeIndicator(':', { needWhitespace: true, isIndention: true });
      }
      writeNode(writer, item, own, true);
    }
  } else if (isEmptyCollection(value)) {
    writer.writeIndicator(Array.isArray(value) ? '[]' : '{}', { needWhitespace: true });
  } else {
    writeScalar(writer, value, indent + BEST_INDENT);
  }
}

export function goStyleYaml(value: unknown): string {
  const writer = new YamlV2Writer();
  writeNode(writer, value, -BEST_INDENT, false);
  writer.endDocument();
  return writer.text();
}
