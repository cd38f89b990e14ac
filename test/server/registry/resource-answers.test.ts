/**
 * Dynamic resource allocation's kinds as kube-apiserver 1.34.4 judges them
 * (fixtures/resource-answers.json, recorded by tools/reference/record-answers.ts, all dry runs):
 * DeviceClasses, ResourceClaims and templates, ResourceSlices. A claim's requests and a request's
 * alternatives are named once each and bounded (32, 8), as are constraints and configs (32); a
 * request's tolerations are checked; an exact count of 0 is defaulted to 1; a slice holds at
 * most 128 devices, each at most 4 taints, and its node selectors are checked as a pod's; a
 * created slice's `pool.generation: 0` is no field its creator owns.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'resource-answers.json'));
