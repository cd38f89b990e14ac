/**
 * RuntimeClasses, ResourceQuotas and LimitRanges as kube-apiserver 1.34.4 answers them
 * (fixtures/runtime-quota-limit-answers.json, recorded by tools/reference/record-answers.ts):
 * handlers, overhead and scheduling; quota scopes and scope selectors with their operators,
 * hard amounts of every kind of resource name; limit types, bounds, defaults and ratios.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'runtime-quota-limit-answers.json'));
