/**
 * Validating and mutating webhook configurations as kube-apiserver 1.34.4 answers them
 * (fixtures/webhook-configuration-answers.json, recorded by tools/reference/record-answers.ts):
 * webhook names, side effects, review versions, client configs (URLs and services), timeouts,
 * policies, rules, selectors and match conditions; and an update without a resourceVersion,
 * which these kinds refuse before validating.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'webhook-configuration-answers.json'));
