/**
 * A CustomResourceDefinition deleted while objects of it remain, as kube-apiserver 1.34.4
 * answers (fixtures/definition-deletion-answers.json, recorded by
 * tools/reference/record-answers.ts): its objects deleted for it, one held by its finalizer;
 * creates refused with a 403 before any admission (a POST, a generated name, an apply that
 * would create, a dry run), updates of what remains still taken; the definition gone once the
 * last object is, and a new one under the same name served empty.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'definition-deletion-answers.json'));
