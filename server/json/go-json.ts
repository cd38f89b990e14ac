/**
 * JSON text as Go's encoding/json writes it by default: `<`, `>` and `&` escaped for HTML, and
 * U+2028 and U+2029 escaped for JavaScript. Those characters occur only inside strings in JSON
 * text, so escaping them in the whole text escapes them in the strings.
 */
const GO_ESCAPED = /[<>&\u2028\u2029]/g;

export function goJsonStringify(value: unknown): string {
  return JSON.stringify(value).replace(
    GO_ESCAPED,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
