/**
 * Admission plugins off by default, as kube-apiserver 1.34.4 answers with them on
 * (fixtures/opt-in-plugin-answers.json, recorded by tools/reference/record-answers.ts with
 * privileged containers allowed): AlwaysPullImages (not on subresources), DenyServiceExternalIPs,
 * LimitPodHardAntiAffinityTopology, PodNodeSelector, PodTolerationRestriction,
 * ExtendedResourceToleration and OwnerReferencesPermissionEnforcement (asked as users who may
 * not delete the object, or may not set finalizers on its owner), and Pod Security's privileged
 * checks.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'opt-in-plugin-answers.json'));
