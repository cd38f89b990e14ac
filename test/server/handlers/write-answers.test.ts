/**
 * Writes as kube-apiserver 1.34.4 answers them (fixtures/write-answers.json, recorded by
 * tools/reference/record-answers.ts): a PATCH whose Content-Type no patch route declares is the
 * router's bare 415; a merge patch of `null` is no patch; an object's resourceVersion is a
 * number, so "0" (or "00") is no precondition and the update is unconditional.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'write-answers.json'));
