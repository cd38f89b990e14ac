/**
 * Deletes as kube-apiserver 1.34.4 answers them (fixtures/delete-answers.json, recorded by
 * tools/reference/record-answers.ts): DeleteOptions in the body and the query (propagation,
 * grace, dry run, preconditions, the read-error escape hatch), and collections deleted by label
 * and field selectors, paged and dry run, for namespaced and cluster-scoped kinds. Bodies that
 * are no DeleteOptions, which the reference answers 500, are capstan's 400 with the same words
 * (test/client/bad-input.test.ts).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'delete-answers.json'));
