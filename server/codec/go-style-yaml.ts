/**
 * YAML as the reference writes it (sigs.k8s.io/yaml over yaml.v2): members sorted, sequences
 * not indented under their key, no anchors or aliases, and strings quoted as yaml.v2 quotes
 * them: in double quotes where a YAML 1.1 reader would take the text for something else
 * (`yes`, `on`, a timestamp, a base-60 number), in single quotes where only the syntax forbids
 * it plain (a leading space, `: `, `#`). The aliases matter most: decoded objects share parts
 * (one managed-fields tree for many entries, one `{}` for every empty leaf), which the YAML
 * library would otherwise write once and refer to, out of order once members are sorted, and
 * fail on. Long strings are folded by the library's rule, not yaml.v2's (it breaks at the first
 * space past column 80, the library at the last before it): the text differs, the value not.
 */
import { Document, Scalar, visit, type ScalarTag, type Tags } from 'yaml';

/**
 * YAML 1.1's float pattern lets a lone `.` (a managed-fields key) be a float, so the library
 * would quote it; yaml.v2 wants a digit, and writes it plain.
 */
const YAML_V2_FLOAT = /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)$/;

function isLoneDotFloat(tag: Tags[number]): tag is ScalarTag {
  return (
    typeof tag === 'object' &&
    !('collection' in tag && tag.collection) &&
    tag.tag === 'tag:yaml.org,2002:float' &&
    tag.test?.test('.') === true
  );
}

function withYamlV2Floats(tags: Tags): Tags {
  return tags.map((tag) => (isLoneDotFloat(tag) ? { ...tag, test: YAML_V2_FLOAT } : tag));
}

const STRING_TAG = 'tag:yaml.org,2002:str';

export function goStyleYaml(value: unknown): string {
  const document = new Document(value, {
    sortMapEntries: true,
    aliasDuplicateObjects: false,
    schema: 'yaml-1.1',
    customTags: withYamlV2Floats,
  });
  const otherTypes = document.schema.tags.filter(
    (tag): tag is ScalarTag =>
      !('collection' in tag && tag.collection) && tag.tag !== STRING_TAG && tag.default === true,
  );
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && otherTypes.some((tag) => tag.test?.test(node.value as string)))
        node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return document.toString({ indentSeq: false, singleQuote: true });
}
