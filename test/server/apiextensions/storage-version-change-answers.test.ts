/**
 * A CRD whose storage version changes while objects of the old one remain, as kube-apiserver
 * 1.34.4 answers (fixtures/storage-version-change-answers.json, recorded by
 * tools/reference/record-answers.ts): an object is read with the defaults of the version it is
 * stored in, not the new storage version's, then pruned by the version asked for; a write
 * through the new version stores it anew, with that version's defaults (and a new generation
 * where they change its spec).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'storage-version-change-answers.json'));
