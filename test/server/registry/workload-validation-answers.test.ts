/**
 * DaemonSets, StatefulSets, ReplicaSets and ControllerRevisions as kube-apiserver 1.34.4 answers
 * them (fixtures/workload-validation-answers.json, recorded by tools/reference/record-answers.ts):
 * selectors and templates, update strategies (an OnDelete DaemonSet's rollingUpdate comes back
 * with both bounds, 0 where unset, as the internal type holds them), history and readiness
 * bounds, service names, pod management, claim templates and retention, ordinals, and the fields
 * an update may not change. Left out: an update of a revision's data that leaves it equal in
 * value, which the reference refuses unless its JSON is byte for byte the stored one (it
 * compares the raw bytes).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'workload-validation-answers.json'));
