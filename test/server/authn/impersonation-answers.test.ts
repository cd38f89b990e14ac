/**
 * Who a request is once it impersonates, as kube-apiserver 1.34.4 answers
 * (fixtures/impersonation-answers.json, recorded by tools/reference/record-answers.ts): the
 * user, groups, extras (their keys unescaped and lower-cased) and uid a SelfSubjectReview shows;
 * a service account's and a node's groups; anonymous; and the denials each is given.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'impersonation-answers.json'), { process: true });
