/**
 * Which kinds take a PUT without a resourceVersion, as kube-apiserver 1.34.4 answers
 * (fixtures/unconditional-updates.json, recorded by tools/reference/record-answers.ts): Leases,
 * PodDisruptionBudgets (and their status), CRDs, APIServices, RuntimeClasses and CSIDrivers
 * refuse it (422 on metadata.resourceVersion, the resource named as the kind), as their
 * strategies allow no unconditional update; a Lease PUT that creates, patches, apply and a
 * ConfigMap take none.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'unconditional-updates.json'));
