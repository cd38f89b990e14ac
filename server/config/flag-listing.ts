/**
 * Every flag of the server with its value as the reference's pflag values print themselves
 * (`Value.String()`), which is what its `/flagz` lists: a flag not given shows its default, a
 * flag given shows what the command line made of it, repeated flags as each type folds them
 * (a list appends, a map merges, anything else keeps the last).
 *
 * The reference's values are the live fields of its options, so a few that it fills in after
 * parsing (its certificate directory, the watch-cache sizes it adds) show there what it chose;
 * here every flag shows what was given or its default.
 */
import { goDuration, parseGoDuration } from './duration';
import { canonicalFlagValue, splitList } from './flag-values';

/** A flag as it was given, in command-line order. */
export interface GivenFlag {
  readonly name: string;
  readonly value: string;
}

/** `k:v` items of a ColonSeparatedMultimapStringString (`--feature-gates`), a bare item under the key ''. */
function colonSeparatedItems(value: string): { key: string; item: string }[] {
  return splitList(value).map((entry) => {
    const colon = entry.indexOf(':');
    return colon < 0 ? { key: '', item: entry } : { key: entry.slice(0, colon), item: entry.slice(colon + 1) };
  });
}

/** `k=v` pairs, the later of one key winning, sorted as cliflag's MapStringString prints them. */
function mergedPairs(values: readonly string[]): string[] {
  const merged = new Map<string, string>();
  for (const value of values)
    for (const entry of splitList(value)) {
      const equals = entry.indexOf('=');
      merged.set(equals < 0 ? entry : entry.slice(0, equals), equals < 0 ? '' : entry.slice(equals + 1));
    }
  return [...merged].map(([key, value]) => `${key}=${value}`).sort();
}

/** How a flag of pflag type `type` prints after being given `values` (one or more, in order). */
export function printedFlagValue(type: string, values: readonly string[]): string {
  const last = values[values.length - 1];
  switch (type) {
    case 'stringSlice':
      return `[${values.flatMap(splitList).join(',')}]`;
    case 'stringArray':
    case 'namedCertKey':
      return `[${values.join(',')}]`;
    case 'mapStringString':
      return mergedPairs(values).join(',');
    case 'stringToString':
      return `[${mergedPairs(values).join(',')}]`;
    case 'colonSeparatedMultimapStringString': {
      // Stable by key: the items of one key keep their order.
      const items = values.flatMap(colonSeparatedItems);
      return items
        .map((entry, index) => ({ ...entry, index }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index))
        .map(({ key, item }) => `${key}:${item}`)
        .join(',');
    }
    case 'duration': {
      const ms = parseGoDuration(last);
      return ms === 0 ? '0s' : goDuration(ms * 1_000_000);
    }
    default:
      return canonicalFlagValue(type, last);
  }
}

/**
 * The listing of `/flagz`: each flag known (`types` and `defaults` by name, the defaults as
 * printed) with what `given` made of it.
 */
export function flagListing(options: {
  readonly types: Readonly<Record<string, string>>;
  readonly defaults: Readonly<Record<string, string>>;
  readonly given: readonly GivenFlag[];
}): Record<string, string> {
  const valuesOf = new Map<string, string[]>();
  for (const { name, value } of options.given) valuesOf.set(name, [...(valuesOf.get(name) ?? []), value]);
  return Object.fromEntries(
    Object.keys(options.types).map((name) => {
      const values = valuesOf.get(name);
      return [name, values ? printedFlagValue(options.types[name], values) : options.defaults[name]];
    }),
  );
}
