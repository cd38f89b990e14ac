/**
 * Which fields a create is credited with where Go's zero struct holds a nil slice, map or
 * pointer, as kube-apiserver 1.34.4 records them (fixtures/nil-member-managed-fields.json,
 * recorded by tools/reference/record-answers.ts). What decides is the member's omitempty, not
 * whether the schema requires it: a ClusterRole's `rules: []` (no omitempty) is owned, an
 * IPAddress's `parentRef` (`+required` yet omitempty) is created with its `.`, a device's empty
 * `counters: {}` (the same) is no field; and the other members where the two differ (slice
 * ports, slice devices, claim requests, CSINode topology keys, FlowSchema namespaces, projected
 * sources, image names, autoscaler metrics).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'nil-member-managed-fields.json'));
