/**
 * Where Go's encoding/base64 StdEncoding (what encoding/json decodes a []byte with) gives up,
 * as Go answered each text: `base64.StdEncoding.DecodeString(text)`'s error, recorded.
 */
import { goBase64ErrorOffset } from '../../../server/json/go-base64';

const RECORDED: readonly [string, number | undefined][] = [
  ['!!', 0],
  ['abc', 0],
  ['abcde', 4],
  ['ab==', undefined],
  ['ab=', 3],
  ['ab=c', 2],
  ['a===', 1],
  ['abcd=', 4],
  ['YWJj\nZA==', undefined],
  ['YWJjZA==\n', undefined],
  ['YWJjZA==x', 8],
  ['YQ', 0],
  ['YQ=\n=', undefined],
  ['====', 0],
  ['abc=', undefined],
  ['Y\r\nQ==', undefined],
  ['', undefined],
];

test.each(RECORDED.map(([text, offset]) => [JSON.stringify(text), text, offset] as const))(
  '%s',
  (_name, text, offset) => {
    expect(goBase64ErrorOffset(text)).toBe(offset);
  },
);
