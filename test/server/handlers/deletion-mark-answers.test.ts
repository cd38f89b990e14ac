/**
 * Deletion marks in writes, as kube-apiserver 1.34.4 answers (fixtures/deletion-mark-answers.json,
 * recorded by tools/reference/record-answers.ts): a create drops a deletionTimestamp it was sent
 * before its field manager sees it; an update that sets a deletionTimestamp or grace period the
 * stored object lacks, or another grace period, is refused as immutable (twice, as the registry
 * and the kind's strategy both check it; new finalizers on a terminating object first); an update
 * of a terminating object keeps its deletionTimestamp but credits its manager with the one it
 * sent, so a later apply of another conflicts; and the update that removes the last finalizer is
 * answered with the object it wrote.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'deletion-mark-answers.json'));
