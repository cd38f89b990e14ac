/**
 * A pod's eviction, ephemeralcontainers, resize and status subresources, as kube-apiserver 1.34.4
 * answers (fixtures/pod-subresource-answers.json, recorded by tools/reference/record-answers.ts):
 * evictions by name, version and dry run, and with delete options the reference refuses
 * (propagationPolicy, dryRun, orphanDependents beside a policy, the unsafe deletion); ephemeral
 * containers added, changed and removed; resizes of memory, CPU, image and QoS class.
 *
 * The refused evictions come last: the reference validates their options only when it deletes
 * the pod, after marking it DisruptionTarget and taking the budget's disruption; capstan refuses
 * them before writing anything (a refused request changes nothing), so the pod differs after.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'pod-subresource-answers.json'));
