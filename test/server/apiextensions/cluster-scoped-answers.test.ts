/**
 * A cluster-scoped custom resource, as kube-apiserver 1.34.4 answers
 * (fixtures/cluster-scoped-answers.json, recorded by tools/reference/record-answers.ts): a
 * namespace in its body dropped, every path under a namespace, a version not served and an
 * unknown resource of its group answered by Go's plain `404 page not found` (the reference's
 * apiextensions handler passes them on), an unknown subresource a NotFound of the object, and a
 * subresource's path read without what follows it.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'cluster-scoped-answers.json'));
