/**
 * What users without system:masters are told, as kube-apiserver 1.34.4 answers
 * (fixtures/authorization-answers.json, recorded by tools/reference/record-answers.ts, each
 * step sent as its `impersonate-user`): denials of resources, subresources, paths and cluster
 * scope; anonymous requests; access reviews of self and others; and RBAC's escalation checks:
 * the missing rules merged and sorted, bindings to missing roles, the bind and escalate verbs,
 * the resolution errors of the writer's own broken bindings, the check made before validation,
 * and updates that change only what the garbage collector writes. fixtures/aggregate-answers.json:
 * two bindings to one missing role name it once, as Go's error aggregate drops a repeated message.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'authorization-answers.json'));
testRecordedAnswers(join(__dirname, 'fixtures', 'aggregate-answers.json'));
