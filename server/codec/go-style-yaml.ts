/**
 * YAML as the reference writes it (sigs.k8s.io/yaml marshals the object to JSON, reads that back
 * with yaml.v2 and has yaml.v2 print it): members sorted, sequences not indented under their
 * key, no anchors or aliases, a number as yaml.v2 resolves its JSON text (an integer that fits
 * an int64 or uint64 keeps its digits, any other is a float64 printed by Go's shortest `%g`:
 * `-1.5e-07`, `1e+20`), and strings quoted as yaml.v2 quotes them: in double quotes where its
 * reader would resolve the text to something else (`yes`, `0x1F`, a timestamp, a base-60
 * number; not `1e400`, which overflows), in single quotes where only the syntax forbids it
 * plain (a leading space, `: `, `#`). The aliases matter most: decoded objects share parts (one
 * managed-fields tree for many entries, one `{}` for every empty leaf), which the YAML library
 * would otherwise write once and refer to, out of order once members are sorted, and fail on.
 * Long strings are folded by the library's rule, not yaml.v2's (it breaks at the first space
 * past column 80, the library at the last before it): the text differs, the value not.
 */
import { Document, Scalar, visit, type ScalarTag, type Tags } from 'yaml';
import { goFormatFloat } from '../../api/go-number';
import { resolvePlainScalar } from '../validation/go-yaml';

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
 * Numbers written as yaml.v2 writes what it read from their JSON text. Its pattern (the only
 * pattern of the tag set, see below) is the quoting rule: a string it matches is quoted.
 */
const GO_NUMBER: ScalarTag = {
  identify: (value) => typeof value === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:float',
  test: { test: resolvesAsOtherType } as unknown as RegExp,
  resolve: (text) => Number(text),
  stringify: ({ value }) => {
    const json = JSON.stringify(value);
    const resolved = resolvePlainScalar(json);
    return resolved.kind === 'int' || resolved.kind === 'uint64' ? json : goFormatFloat(value as number, 64);
  },
};

/**
 * The library quotes a string that some tag's pattern matches; the core tags' patterns (YAML
 * 1.2's) are not yaml.v2's, so theirs are dropped and GO_NUMBER's alone decides. The tags stay
 * for writing nulls and booleans.
 */
function yamlV2Tags(tags: Tags): Tags {
  const others = tags
    .filter((tag) => typeof tag === 'object' && !(typeof tag.identify === 'function' && tag.identify(0)))
    .map((tag) => (typeof tag === 'object' && 'test' in tag ? { ...tag, test: undefined } : tag));
  return [GO_NUMBER, ...(others as Tags)];
}

export function goStyleYaml(value: unknown): string {
  const document = new Document(value, {
    sortMapEntries: true,
    aliasDuplicateObjects: false,
    schema: 'core',
    customTags: yamlV2Tags,
  });
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && resolvesAsOtherType(node.value)) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return document.toString({ indentSeq: false, singleQuote: true });
}
