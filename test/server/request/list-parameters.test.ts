/**
 * A list's query parameters as kube-apiserver 1.34.4 answers them
 * (fixtures/list-parameters.json, recorded by tools/reference/record-answers.ts): limits,
 * resourceVersion and resourceVersionMatch together and alone, continue tokens (malformed, with
 * a version, expired), label and field selectors with their operators and syntax errors,
 * timeouts, watch-only parameters on a list, pretty output and unknown parameters.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'list-parameters.json'));
