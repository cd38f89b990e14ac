/**
 * Go's encoding/json words for a syntax error, from V8's: the answers below are what
 * json.Unmarshal said for the same text under Go 1.26.8, the Go the reference is built with.
 * The offending character is quoted as Go's quoteChar quotes the byte there: a character beyond
 * ASCII as its first UTF-8 byte read as a rune ('Ã' for é, 'ð' for an emoji).
 */
import { goJSONSyntaxError } from '../../api/go-json-syntax';

const RECORDED_FROM_GO: readonly (readonly [string, string])[] = [
  ["'x'", "invalid character '\\'' looking for beginning of value"],
  ['é', "invalid character 'Ã' looking for beginning of value"],
  ['{"a":1 é}', "invalid character 'Ã' after object key:value pair"],
  ['\x7f', "invalid character '\\x7f' looking for beginning of value"],
  ['[1 "x"]', "invalid character '\"' after array element"],
  ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
  ['\\', "invalid character '\\\\' looking for beginning of value"],
  ['[1,\x01]', "invalid character '\\x01' looking for beginning of value"],
  ['😀', "invalid character 'ð' looking for beginning of value"],
];

test.each(RECORDED_FROM_GO)('%j', (text, expected) => {
  let error: Error | undefined;
  try {
    JSON.parse(text);
  } catch (thrown) {
    error = thrown as Error;
  }
  expect(error).toBeDefined();
  expect(goJSONSyntaxError(text, error!)).toBe(expected);
});
