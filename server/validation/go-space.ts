/**
 * Go's unicode.IsSpace, for the reference's strings.TrimSpace and its whitespace checks:
 * JavaScript's `trim` and `\s` also take U+FEFF, which Go keeps, and miss U+0085, which Go takes.
 */
export const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

const GO_SPACE_AROUND = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

/** Go's strings.TrimSpace. */
export function goTrimSpace(text: string): string {
  return text.replace(GO_SPACE_AROUND, '');
}
