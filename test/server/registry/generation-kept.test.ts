/**
 * metadata.generation of kinds that do not count it, as kube-apiserver 1.34.4 keeps it
 * (fixtures/generations.json, recorded by tools/reference/record-answers.ts): a create keeps
 * what the client sent, an update or patch keeps the stored one; a PriorityClass starts at 1
 * and stays there; an autoscaler's spec change counts nothing.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'generations.json'));
