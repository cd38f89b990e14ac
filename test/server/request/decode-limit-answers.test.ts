/**
 * Bodies at the edges of what a decoder takes, as kube-apiserver 1.34.4 answers them
 * (fixtures/decode-limit-answers.json, recorded by tools/reference/record-answers.ts): JSON
 * nested past Go's 10,000 levels (refused in its scanner's words), aliases that multiply, numbers
 * no Go integer holds, text after the object, a byte order mark, empty and scalar bodies, and
 * YAML with several documents, tabs, repeated and non-string keys and tags.
 *
 * YAML nested deeper than the YAML library can compose is refused as too deep in yaml.v3's words
 * (the reference reads such text up to its own 10,000 levels): checked here without a server.
 */
import { join } from 'node:path';
import { GoYamlConversionError, readGoYamlText } from '../../../server/validation/go-yaml';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'decode-limit-answers.json'));

test('YAML nested past what its parser composes is refused as too deep, not with the stack error', () => {
  const text = `metadata:\n  name: deep\n  annotations:\n    a: ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`;
  expect(() => readGoYamlText(text)).toThrow(new GoYamlConversionError('yaml: line 4: exceeded max depth'));
});
