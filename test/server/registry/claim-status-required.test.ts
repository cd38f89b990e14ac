/**
 * The two Required checks of the reference's ValidatePersistentVolumeClaimStatusUpdate, as
 * kube-apiserver 1.34.4 answered them (fixtures/recorded-claim-status-required.json).
 * `resourceVersion` is never missing by then: a status write without one (a PUT, or a patch
 * that removes it) is an unconditional update, which the store gives the stored version. A claim
 * without access modes no request can make, but one stored so (written straight to storage
 * here) has every status write refused with `Spec.accessModes`, the reference's capitalized path,
 * before the status's own checks.
 */
import { join } from 'node:path';
import { replayRecordedSteps } from './recorded-steps';

replayRecordedSteps({
  fixture: join(__dirname, 'fixtures', 'recorded-claim-status-required.json'),
  resource: 'persistentvolumeclaims',
  namespace: 'default',
  shown: (claim) => ({ status: claim.status }),
});
