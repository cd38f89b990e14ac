/**
 * A CRD converted by a webhook whose versions have schemas of their own, as kube-apiserver
 * 1.34.4 answers (fixtures/webhook-version-schemas-answers.json, recorded by
 * tools/reference/record-answers.ts against the test's own webhook): writes validated and
 * defaulted by the version they are sent in, the webhook's answers pruned by the version they
 * are converted to, and applies and deletes through the version not stored.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'webhook-version-schemas-answers.json'));
