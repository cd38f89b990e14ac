/**
 * Server-side apply to custom resources, as kube-apiserver 1.34.4 answers it
 * (fixtures/custom-resource-apply-answers.json, recorded by tools/reference/record-answers.ts):
 * - nulls: an apply's result is not decoded, so a null the schema does not allow is no dropped
 *   member but a 422 (`spec.a in body must be of type string: "null"`), nullable ones stay, and a
 *   null over a map or list that holds something merges nothing;
 * - a schema's list and map types: list-map items keyed by two fields (one defaulted), sets,
 *   atomic lists and maps (a conflict where another manager changes them), preserved unknown
 *   fields merged member by member, a default that comes back when its applier drops the field,
 *   and the status owned through its subresource and not through the main resource. (Duplicate
 *   keys in a configuration are left out: the reference answers them with a bare 500, capstan
 *   with a 400.)
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'custom-resource-apply-answers.json'));
