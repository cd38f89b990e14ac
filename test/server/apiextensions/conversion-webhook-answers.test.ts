/**
 * Custom resources converted through a webhook, as kube-apiserver 1.34.4 answers
 * (fixtures/conversion-webhook-answers.json, recorded by tools/reference/record-answers.ts
 * against the test's own webhook): reads, lists, creates and patches in the version not stored
 * when the webhook converts, fails, answers another uid, too few objects, no result, objects
 * renamed, relabelled (a label the webhook adds is not credited to the writer) or left in their
 * version.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'conversion-webhook-answers.json'));
