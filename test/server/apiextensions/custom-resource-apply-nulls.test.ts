/**
 * Nulls in server-side applies to a custom resource, as kube-apiserver 1.34.4 answers them
 * (fixtures/custom-resource-apply-nulls.json, recorded by tools/reference/record-answers.ts): an
 * apply's result is not decoded, so a null the schema does not allow is no dropped member but a
 * 422 (`spec.a in body must be of type string: "null"`), nullable ones stay, and a null over a map
 * or list that holds something merges nothing.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'custom-resource-apply-nulls.json'));
