/**
 * Which plugin refuses a node's mirror pod, as kube-apiserver 1.34.4 answers with the Node
 * authorizer, NodeRestriction and ServiceAccount admission on (fixtures/mirror-pod-order-answers.json,
 * recorded by tools/reference/record-answers.ts): ServiceAccount comes first in the reference's
 * order and refuses, already while admitting, a mirror pod that names an account, a secret or a
 * token projection; NodeRestriction refuses the rest (no owner reference to the node, no mirror
 * annotation).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'mirror-pod-order-answers.json'));
