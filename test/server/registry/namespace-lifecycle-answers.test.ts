/**
 * Namespaces' lifecycle, as kube-apiserver 1.34.4 answers (fixtures/namespace-lifecycle-
 * answers.json, recorded by tools/reference/record-answers.ts): writes into a namespace that does
 * * not exist or is terminating (a create), the namespaces that cannot be deleted, names and finalizers
 * refused, a deletion held by a finalizer (marked Terminating with no grace period), and a
 * namespace in the body or the path of the wrong scope.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'namespace-lifecycle-answers.json'));
