/**
 * Access reviews are questions, not objects: their metadata must be empty (a
 * LocalSubjectAccessReview's but for its namespace), printed in the refusal as Go's JSON of
 * ObjectMeta with the managedFields the create handler's field manager added; zero members count
 * as empty and are left out of the answer. Recorded from kube-apiserver 1.34.4
 * (fixtures/review-metadata.json, tools/reference/record-answers.ts).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'review-metadata.json'));
