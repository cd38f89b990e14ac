import { goJsonStringify } from '../../../server/json/go-json';

describe("JSON text as Go's encoding/json writes it", () => {
  test.each([
    ['<statefulsetname>-<podindex>', '"\\u003cstatefulsetname\\u003e-\\u003cpodindex\\u003e"'],
    ['a & b', '"a \\u0026 b"'],
    ['line\u2028separator\u2029', '"line\\u2028separator\\u2029"'],
    ['plain "quoted" \\ text', '"plain \\"quoted\\" \\\\ text"'],
  ])('%j', (text, expected) => {
    expect(goJsonStringify(text)).toBe(expected);
    expect(JSON.parse(goJsonStringify({ text }))).toEqual({ text });
  });
});
