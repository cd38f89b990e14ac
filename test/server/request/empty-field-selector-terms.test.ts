/**
 * Field selector terms with neither field nor value (`==`, `=`, `!=`) as kube-apiserver 1.34.4
 * reads them (fixtures/empty-field-selector-terms.json, recorded by
 * tools/reference/record-answers.ts): its parse drops such a term, so it selects everything and
 * no field label is checked for it; with a value (`=x`) the empty label is refused, and the
 * other terms are read as ever.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'empty-field-selector-terms.json'));
