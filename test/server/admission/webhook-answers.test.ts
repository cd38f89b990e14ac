/**
 * What admission webhooks' answers make of a write, as kube-apiserver 1.34.4 answers
 * (fixtures/webhook-answers.json, recorded by tools/reference/record-answers.ts against the
 * test's own webhook, test/helpers/answering-webhook.ts): denials with and without a status,
 * their details passed on, warnings, patches that are no JSON, no patch, miss their path or
 * break the object's type, and answers that are no AdmissionReview v1 for this request: another
 * uid, kind or version, no response, a patch from a validating webhook, a non-2xx answer with
 * and without a Status, each under Fail and Ignore; match conditions that fail to evaluate (the
 * request refused, or the webhook skipped under Ignore) and a webhook that cannot be reached.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'webhook-answers.json'));
