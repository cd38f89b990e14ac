/**
 * NetworkPolicies, ServiceCIDRs and IPAddresses as kube-apiserver 1.34.4 answers them
 * (fixtures/networking-answers.json, recorded by tools/reference/record-answers.ts): policy
 * types, ports and port ranges, peers and ipBlocks with their exceptions; a ServiceCIDR's
 * ranges (too many shows the whole spec as its internal struct marshals: `{"CIDRs":[…]}`) and
 * their fixed update; IPAddress names and parent references.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'networking-answers.json'));
