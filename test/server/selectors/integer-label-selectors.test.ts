/**
 * Label selectors comparing a label as an integer (`n>5`, `n<5`), as kube-apiserver 1.34.4 answers
 * them (fixtures/integer-label-selectors.json, recorded by tools/reference/record-answers.ts): a
 * label that is not an int64 matches neither, values are checked as integers and as label values.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'integer-label-selectors.json'));
