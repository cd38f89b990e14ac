/**
 * Pod Security admission as kube-apiserver 1.34.4 answers (fixtures/pod-security-answers.json,
 * recorded by tools/reference/record-answers.ts): namespace labels that name no level or
 * version, pods refused at each level and pinned version with every check's words, warnings on
 * workload templates, the warnings of relabelling a namespace its pods would violate, and
 * ephemeral containers.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'pod-security-answers.json'));
