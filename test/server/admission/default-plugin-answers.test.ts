/**
 * The admission plugins on by default that fill a pod's, claim's or ingress's class, as
 * kube-apiserver 1.34.4 answers (fixtures/default-plugin-answers.json, recorded by
 * tools/reference/record-answers.ts): RuntimeClass (overhead, scheduling, conflicts), Priority
 * (the global default, a class's value and preemption policy, the system classes, which a DELETE
 * by name may not remove and a DELETE of the collection does), DefaultStorageClass and
 * DefaultIngressClass (the newest default, by name when created together).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'default-plugin-answers.json'));
