/**
 * The Kubernetes format library (1.31): each named format's verdicts and messages, runtime costs
 * and estimates as the reference's environment (k8s.io/apiserver 0.34.4, cel-go 0.26) gives them.
 */
import { ExpressionCompiler } from '../../server/cel/environment';
import { toJson } from '../../server/cel/values';

const compiler = new ExpressionCompiler({});

function compiled(expression: string) {
  const result = compiler.compile(expression);
  if (!result.ok) throw new Error(result.error);
  return result.compiled;
}

const DNS1123_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('validate: none when valid, else the messages; cost and estimate as the reference gives them', () => {
  test.each([
    ["format.dns1123Label().validate('my-name')", null, 9, 33],
    ["format.dns1123Label().validate('My_Name')", [DNS1123_LABEL], 9, 33],
    ["format.named('dns1123Label').value().validate('a')", null, 10, 34],
    ["format.dns1123Subdomain().validate('a.b')", null, 16, 33],
    ["format.dns1123Subdomain().validate('A')", [DNS1123_SUBDOMAIN], 16, 33],
    [
      "format.dns1035Label().validate('1a')",
      [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
      9,
      33,
    ],
    ["format.qualifiedName().validate('example.com/Na_me')", null, 31, 65],
    [
      "format.qualifiedName().validate('a/b/c')",
      [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
      16,
      33,
    ],
    [
      "format.labelValue().validate('-x')",
      [
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
      11,
      33,
    ],
    // A prefix (a generateName) may end with '-', not with '.'.
    ["format.dns1123LabelPrefix().validate('abc-')", null, 9, 33],
    ["format.dns1123LabelPrefix().validate('Abc-')", [DNS1123_LABEL], 9, 33],
    ["format.dns1123SubdomainPrefix().validate('abc.')", [DNS1123_SUBDOMAIN], 16, 33],
    ["format.dns1035LabelPrefix().validate('abc-')", null, 9, 33],
    ["format.uri().validate('https://example.com/x')", null, 829, 97],
    ["format.uri().validate('foo')", ['parse "foo": invalid URI for request'], 277, 33],
    ["format.uri().validate('')", ['parse "": empty url'], 277, 1],
    ["format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')", null, 73, 129],
    ["format.uuid().validate('123e4567e89b12d3a456426614174000')", null, 73, 129],
    ["format.uuid().validate('x')", ['does not match the UUID format'], 19, 33],
    ["format.byte().validate('aGVsbG8=')", null, 22, 33],
    ["format.byte().validate('aGVsbG8')", ['invalid base64'], 22, 33],
    ["format.byte().validate('')", ['invalid base64'], 22, 1],
    ["format.date().validate('2024-02-29')", null, 37, 33],
    ["format.date().validate('2023-02-29')", ['invalid date'], 37, 33],
    ["format.datetime().validate('2024-01-01T10:00:00Z')", null, 55, 65],
    ["format.datetime().validate('2024-01-01t10:00:00.5+01:00')", null, 55, 97],
    ["format.datetime().validate('2024-01-01T24:00:00Z')", ['invalid datetime'], 55, 65],
    ["format.datetime().validate('2024-01-01')", ['invalid datetime'], 37, 33],
  ])('%s', (expression, value, cost, estimate) => {
    const expression_ = compiled(expression);
    const result = expression_.evaluate({});
    expect({ value: result.ok ? toJson(result.value) : result, cost: result.cost }).toEqual({ value, cost });
    expect(expression_.estimateMaxCost()).toBe(estimate);
  });
});

describe('named formats', () => {
  test.each([
    ["format.named('nope').hasValue()", false],
    ["format.named('uuid').hasValue()", true],
    ['format.dns1123Label() == format.dns1123Label()', true],
    ['format.dns1123Label() == format.uuid()', false],
    ["format.named('labelValue').value() == format.labelValue()", true],
  ])('%s', (expression, value) => {
    const result = compiled(expression).evaluate({});
    expect(result.ok && toJson(result.value)).toBe(value);
  });

  test('validate takes a string', () => {
    expect(compiler.compile('format.dns1123Label().validate(1)')).toEqual({
      ok: false,
      error: expect.stringContaining(
        "found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.(int)'",
      ),
    });
  });

  test("string.format is still the strings library's", () => {
    const result = compiled("'%s!'.format(['a'])").evaluate({});
    expect(result.ok && result.value).toBe('a!');
  });
});
