/**
 * Go's fmt prints a map's keys sorted by their bytes: a character above U+FFFF (4 UTF-8 bytes
 * from 0xF0) after one of U+E000..FFFF (3 bytes from 0xEE), where UTF-16 order puts it first.
 */
import { goSharpValue, goValue } from '../../../server/apply/go-print';

describe("Go's fmt forms of unstructured values", () => {
  const value = { '\u{1F600}': 1, '\uFF21': 'x', b: [true, null] };

  it('%v orders map keys by their UTF-8 bytes', () => {
    expect(goValue(value)).toBe('map[b:[true <nil>] \uFF21:x \u{1F600}:1]');
  });

  it('%#v orders map keys by their UTF-8 bytes', () => {
    const printed = goSharpValue(value);
    expect(printed.indexOf('"\uFF21"')).toBeLessThan(printed.indexOf('"\u{1F600}"'));
    expect(printed.indexOf('"b"')).toBeLessThan(printed.indexOf('"\uFF21"'));
  });
});
