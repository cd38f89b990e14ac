/**
 * A CRD of two versions with schemas of their own and no conversion webhook, as kube-apiserver
 * 1.34.4 answers (fixtures/multi-version-answers.json, recorded by
 * tools/reference/record-answers.ts): each write defaulted and validated (schema, CEL rules,
 * status) by the schema of the version it is sent in, managedFields credited in that version,
 * and each read pruned by the schema of the version asked for, with only the storage version's
 * defaults filled in.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'multi-version-answers.json'));
