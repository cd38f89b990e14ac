/**
 * Nodes and Namespaces as kube-apiserver 1.34.4 answers them
 * (fixtures/node-and-namespace-answers.json, recorded by tools/reference/record-answers.ts): pod
 * CIDRs, taints, provider IDs, config sources, status addresses, capacities, huge pages, daemon
 * endpoints and images, and the spec fields a node may set once; namespace names, finalizers,
 * status phases, the finalize subresource and the name label.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'node-and-namespace-answers.json'));
