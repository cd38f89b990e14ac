/**
 * Go's encoding/json words for a syntax error: the answers below are what json.Unmarshal said
 * for the same text under Go 1.26.8, the Go the reference is built with ('' where it took the
 * text). The offending character is quoted as Go's quoteChar quotes the byte there: a character
 * beyond ASCII as its first UTF-8 byte read as a rune ('Ã' for é, 'ð' for an emoji); the end of
 * the input is a space to Go's scanner, so a literal cut short is refused at ' '.
 */
import { goJSONSyntaxProblem } from '../../api/go-json-syntax';

const RECORDED_FROM_GO: readonly (readonly [string, string])[] = [
  ["'x'", "invalid character '\\'' looking for beginning of value"],
  ['é', "invalid character 'Ã' looking for beginning of value"],
  ['{"a":1 é}', "invalid character 'Ã' after object key:value pair"],
  ['', "invalid character '\\x7f' looking for beginning of value"],
  ['[1 "x"]', "invalid character '\"' after array element"],
  ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
  ['\\', "invalid character '\\\\' looking for beginning of value"],
  ['[1,\u0001]', "invalid character '\\x01' looking for beginning of value"],
  ['😀', "invalid character 'ð' looking for beginning of value"],
  ['nope', "invalid character 'o' in literal null (expecting 'u')"],
  ['tru', "invalid character ' ' in literal true (expecting 'e')"],
  ['trux', "invalid character 'x' in literal true (expecting 'e')"],
  ['fals', "invalid character ' ' in literal false (expecting 'e')"],
  ['falze', "invalid character 'z' in literal false (expecting 's')"],
  ['nul', "invalid character ' ' in literal null (expecting 'l')"],
  ['nulx', "invalid character 'x' in literal null (expecting 'l')"],
  ['t', "invalid character ' ' in literal true (expecting 'r')"],
  ['f', "invalid character ' ' in literal false (expecting 'a')"],
  ['n', "invalid character ' ' in literal null (expecting 'u')"],
  ['', 'unexpected end of JSON input'],
  [' ', 'unexpected end of JSON input'],
  ['{', 'unexpected end of JSON input'],
  ['[', 'unexpected end of JSON input'],
  ['{"a"', 'unexpected end of JSON input'],
  ['{"a":', 'unexpected end of JSON input'],
  ['{"a":1', 'unexpected end of JSON input'],
  ['{"a":1,', 'unexpected end of JSON input'],
  ['[1,', 'unexpected end of JSON input'],
  ['"abc', 'unexpected end of JSON input'],
  ['"a\\', "invalid character ' ' in string escape code"],
  ['"a\\u12', "invalid character ' ' in \\u hexadecimal character escape"],
  ['"a\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
  ['"a\\q"', "invalid character 'q' in string escape code"],
  ['"a\tb"', "invalid character '\\t' in string literal"],
  ['-', "invalid character ' ' in numeric literal"],
  ['-x', "invalid character 'x' in numeric literal"],
  ['01', "invalid character '1' after top-level value"],
  ['1.', "invalid character ' ' after decimal point in numeric literal"],
  ['1.x', "invalid character 'x' after decimal point in numeric literal"],
  ['1e', "invalid character ' ' in exponent of numeric literal"],
  ['1e+', "invalid character ' ' in exponent of numeric literal"],
  ['1ex', "invalid character 'x' in exponent of numeric literal"],
  ['1E-5x', "invalid character 'x' after top-level value"],
  ['-0.5e10', ''],
  ['1 2', "invalid character '2' after top-level value"],
  ['{} x', "invalid character 'x' after top-level value"],
  ['[] ]', "invalid character ']' after top-level value"],
  ['{"a" 1}', "invalid character '1' after object key"],
  ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
  ['{,}', "invalid character ',' looking for beginning of object key string"],
  ['[,]', "invalid character ',' looking for beginning of value"],
  ['[1,]', "invalid character ']' looking for beginning of value"],
  ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ['{"a":}', "invalid character '}' looking for beginning of value"],
  ['[}', "invalid character '}' looking for beginning of value"],
  ['{]', "invalid character ']' looking for beginning of object key string"],
  ['{"a":[1,{"b":tru}]}', "invalid character '}' in literal true (expecting 'e')"],
  ['{"a":-}', "invalid character '}' in numeric literal"],
  ['123abc', "invalid character 'a' after top-level value"],
  ['[1e5, 2.5E-3, -0]', ''],
  ['null', ''],
  ['true', ''],
  [' 1 ', ''],
  ['"\\u00e9"', ''],
  ['[[[]]]', ''],
  ['{"a":1}\u0000', "invalid character '\\x00' after top-level value"],
  ['﻿{}', "invalid character 'ï' looking for beginning of value"],
  ['1.5.', "invalid character '.' after top-level value"],
  ['--1', "invalid character '-' in numeric literal"],
  ['+1', "invalid character '+' looking for beginning of value"],
  ['.5', "invalid character '.' looking for beginning of value"],
  ['[01]', "invalid character '1' after array element"],
  ['{"a":01}', "invalid character '1' after object key:value pair"],
  ['"\u001f"', "invalid character '\\x1f' in string literal"],
];

test.each(RECORDED_FROM_GO)('%j', (text, expected) => {
  expect(goJSONSyntaxProblem(text) ?? '').toBe(expected);
  // Every text Go refuses, JSON.parse refuses too, and the other way round.
  if (expected === '') expect(() => JSON.parse(text)).not.toThrow();
  else expect(() => JSON.parse(text)).toThrow();
});

test('reads bytes, not characters: an invalid UTF-8 byte is quoted as itself', () => {
  expect(goJSONSyntaxProblem(Buffer.from([0xff]))).toBe("invalid character 'ÿ' looking for beginning of value");
  // Go takes any byte but a control character inside a string.
  expect(goJSONSyntaxProblem(Buffer.from([0x5b, 0x22, 0xff, 0x22, 0x5d]))).toBeUndefined();
});

test('nests at most 10,000 objects and arrays, as Go does', () => {
  expect(goJSONSyntaxProblem('['.repeat(10_000) + ']'.repeat(10_000))).toBeUndefined();
  expect(goJSONSyntaxProblem('['.repeat(10_001))).toBe("invalid character '[' exceeded max depth");
  expect(goJSONSyntaxProblem('{"a":'.repeat(10_001))).toBe("invalid character '{' exceeded max depth");
  expect(goJSONSyntaxProblem('['.repeat(10_000))).toBe('unexpected end of JSON input');
});
