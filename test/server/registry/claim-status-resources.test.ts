/**
 * A PersistentVolumeClaim's status write, as kube-apiserver 1.34.4 answered the same writes
 * (fixtures/recorded-claim-status-resources.json): its capacity amounts are whole-unit values not
 * below zero (a negative one prints as its integer value, rounded away from zero); its
 * allocatedResourceStatuses, then its allocatedResources, are keyed by qualified names that are
 * `storage` among the native ones, the statuses one of the resize states and the amounts not
 * negative. A main update keeps the stored status, so what it sends there is not judged.
 */
import { replayRecordedWrites } from './recorded-writes';

describe('claim status resources', () => {
  replayRecordedWrites('recorded-claim-status-resources.json');
});
