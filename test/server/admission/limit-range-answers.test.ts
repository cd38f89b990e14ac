/**
 * The LimitRanger admission plugin and LimitRange and ResourceQuota validation, as
 * kube-apiserver 1.34.4 answers (fixtures/limit-range-answers.json, recorded by
 * tools/reference/record-answers.ts): container defaults, minimums, maximums and
 * limit-to-request ratios, a pod's total, claims' storage bounds, and the refusals of invalid
 * ranges and quotas. Quota enforcement is left out: the recordings run the reference without a
 * controller manager, so its quotas never get a status to enforce.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'limit-range-answers.json'));
