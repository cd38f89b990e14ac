/**
 * MutatingAdmissionPolicies (admissionregistration.k8s.io/v1beta1, behind their gate), as
 * kube-apiserver 1.34.4 answers with them on (fixtures/mutating-policy-answers.json, recorded by
 * tools/reference/record-answers.ts): apply configurations and JSON patches, a replace of a
 * missing member, expressions that fail under Fail and Ignore, values of the wrong type, and
 * match conditions.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'mutating-policy-answers.json'));
