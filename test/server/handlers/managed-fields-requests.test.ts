/**
 * managedFields a write sends itself, as kube-apiserver 1.34.4 takes them
 * (fixtures/managed-fields-requests.json, recorded by tools/reference/record-answers.ts): an empty
 * list or one empty entry resets them, and the update that reset them, as every later update,
 * records nothing (the object is untracked until an apply); entries that decode replace the
 * stored ones, the last of two for one manager counting; an entry that does not decode (another
 * operation or fieldsType, no apiVersion, a field set of the wrong form) keeps the stored ones,
 * and so does a JSON patch removing them.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'managed-fields-requests.json'));
