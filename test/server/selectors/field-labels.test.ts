/**
 * Field selector labels as kube-apiserver 1.34.4 converts them, kind by kind
 * (fixtures/field-labels.json, recorded by tools/reference/record-answers.ts): a kind with its
 * own conversion takes its labels and no other, in its own words (Jobs name themselves,
 * ResourceSlices their group, version and kind; cluster-scoped Nodes, Namespaces and CSRs take no
 * metadata.namespace); apps/v1 ReplicaSets take only the metadata labels; events.k8s.io Events
 * select by `regarding.*` and `reportingController`, read as the stored core Event's fields, and
 * refuse the core names.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'field-labels.json'));
