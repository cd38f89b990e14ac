/**
 * Templates client-go 0.34.4's util/jsonpath parser was given (go-jsonpath.reference.json: each
 * template, with the parser's error where it refused it), from a sample of generated fieldRefs
 * wrapped in an action as the reference's policy status validation wraps them: quotes, filters,
 * slices, unions, recursive descent, numbers, escapes and characters outside ASCII. The same
 * verdict and the same words here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { goJSONPathParseError } from '../../../server/validation/go-jsonpath';

const recorded: readonly { readonly template: string; readonly error?: string }[] = JSON.parse(
  readFileSync(join(__dirname, 'go-jsonpath.reference.json'), 'utf8'),
);

test.each(recorded.map(({ template, error }) => [JSON.stringify(template), template, error]))(
  '%s',
  (_, template, error) => {
    expect(goJSONPathParseError(template as string)).toBe(error);
  },
);

test('a template far longer than the stack is deep still parses', () => {
  expect(goJSONPathParseError(`{${' .a'.repeat(200_000)}}`)).toBeUndefined();
});
