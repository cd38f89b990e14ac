/**
 * Writes whose preconditions fail, as kube-apiserver 1.34.4 answers them
 * (fixtures/precondition-answers.json, recorded by tools/reference/record-answers.ts): updates,
 * patches of every type, applies, status and scale writes at a stale or unwritten
 * resourceVersion or naming another uid, on dry runs too; updates that name another object or
 * namespace, or a missing one; a pod replaced without the priority its create was given (kept,
 * as the Priority plugin keeps it); a lease created by an update; deletes with preconditions;
 * and nothing changed by any of them.
 *
 * A resourceVersion that is no number is left out: the reference answers it with a bare 500,
 * capstan with a 400 in the same words (storage/objects/resource-version.ts).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'precondition-answers.json'));
