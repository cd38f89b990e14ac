import { goJSONQuote, goQuote, goQuoteSlice } from '../../api/go-quote';

// What Go 1.26.8's strconv.Quote (the Go of the reference kube-apiserver) prints for each input;
// a lone surrogate is given as Go's encoding/json decodes its JSON escape, as U+FFFD.
const cases: readonly (readonly [string, string, string])[] = [
  ['an ASCII control character as \\x', 'a\x01b', '"a\\x01b"'],
  ['the control characters with a short escape', '\x07\b\f\n\r\t\v', '"\\a\\b\\f\\n\\r\\t\\v"'],
  ['quotes and backslashes', 'say "hi" \\ bye', '"say \\"hi\\" \\\\ bye"'],
  ['DEL', '\x7f', '"\\x7f"'],
  ['the no-break space, a space that is not ASCII', '\u00a0', '"\\u00a0"'],
  ['the soft hyphen, a format character', '\u00ad', '"\\u00ad"'],
  ['a C1 control character', '\u0085', '"\\u0085"'],
  ['the byte order mark', '\ufeff', '"\\ufeff"'],
  ['the line separator', 'a\u2028b', '"a\\u2028b"'],
  ['an astral format character as \\U', '\u{e0001}', '"\\U000e0001"'],
  ['an astral private-use character', '\u{f0000}', '"\\U000f0000"'],
  ['an astral symbol, printable', '\u{1f600}', '"\u{1f600}"'],
  ['letters beyond ASCII, printable', 'é日本', '"é日本"'],
  ['a lone high surrogate', 'x\ud800y', '"x\ufffdy"'],
  ['surrogates in the wrong order', '\udc00\ud800', '"\ufffd\ufffd"'],
  // Assigned in Unicode 16 and 17, which V8 knows and Go 1.26's Unicode 15 tables do not.
  ['a Unicode 16 letter', '\u0897', '"\\u0897"'],
  ['a Unicode 16 astral digit', '\u{1fbfa}', '"\\U0001fbfa"'],
];

describe("goQuote prints as Go's strconv.Quote", () => {
  it.each(cases)('%s', (_name, input, quoted) => {
    expect(goQuote(input)).toBe(quoted);
  });
});

// What Go 1.26.8's json.Marshal prints for each: the form a field error gives a named string type's value.
const jsonCases: readonly (readonly [string, string, string])[] = [
  ['HTML characters escaped', '<a&b>', '"\\u003ca\\u0026b\\u003e"'],
  ['controls as \\u, separators escaped', 'a\x01\u2028', '"a\\u0001\\u2028"'],
  ['a soft hyphen left as it is', 'a\u00adb', '"a\u00adb"'],
  ['a lone surrogate as U+FFFD', 'x\ud800', '"x\ufffd"'],
  ['an escaped backslash before text that looks like an escape', '\\ud800', '"\\\\ud800"'],
];

describe("goJSONQuote prints as Go's json.Marshal of a string", () => {
  it.each(jsonCases)('%s', (_name, input, marshalled) => {
    expect(goJSONQuote(input)).toBe(marshalled);
  });
});

test("goQuoteSlice prints as Go's %q of a []string", () => {
  expect(goQuoteSlice(['a', 'b\x01', '\ufeff'])).toBe('["a" "b\\x01" "\\ufeff"]');
});
