/**
 * What a kubelet may do under the Node authorizer and the NodeRestriction plugin, as
 * kube-apiserver 1.34.4 answers (fixtures/node-restriction-answers.json, recorded by
 * tools/reference/record-answers.ts with both turned on, each step asked as system:node:n1):
 * the secrets and config maps of its own pods only, its own Node's labels, taints and config
 * source, mirror pods only and only of its own, the status, eviction and deletion of its own
 * pods, and its own lease and CSINode.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'node-restriction-answers.json'));
