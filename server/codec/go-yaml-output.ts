/**
 * An answer in YAML as the reference writes it: sigs.k8s.io/yaml marshals the object to JSON,
 * reads that JSON back with yaml.v2 and has yaml.v2 print it. So map keys come sorted, a list
 * sits at its key's indentation, and a number is what yaml.v2 resolves its JSON text to: an
 * integer that fits an int64 or uint64 keeps its digits, any other number is printed as a
 * float64 by Go's shortest `%g` (`-1.5e-07`, `1e+20`).
 */
import { stringify, type ScalarTag } from 'yaml';
import { goFormatFloat } from '../../api/go-number';
import { resolvePlainScalar } from '../validation/go-yaml';

const goNumberTag: ScalarTag = {
  identify: (value) => typeof value === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:float',
  resolve: (text) => Number(text),
  stringify: ({ value }) => {
    const json = JSON.stringify(value);
    const resolved = resolvePlainScalar(json);
    return resolved.kind === 'int' || resolved.kind === 'uint64' ? json : goFormatFloat(value as number, 64);
  },
};

export function goYamlMarshal(value: unknown): string {
  return stringify(value, {
    sortMapEntries: true,
    indentSeq: false,
    customTags: (tags) => [goNumberTag, ...tags.filter((tag) => typeof tag === 'string' || !tag.identify?.(0))],
  });
}
