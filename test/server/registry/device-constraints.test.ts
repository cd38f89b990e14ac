/**
 * A ResourceClaim's device constraints judged as kube-apiserver 1.34.4 judged the same creates
 * (fixtures/recorded-device-constraints*.json): the requests they name are a set, the attribute
 * named must be a fully qualified name (a domain, then a name), and only the first of
 * matchAttribute and distinctAttribute is judged when both are set. One that names neither is
 * refused on matchAttribute, or with the DRAConsumableCapacity gate on the whole constraint, in
 * the reference's words.
 */
import { replayRecordedWrites } from './recorded-writes';

describe('device constraints at the default feature gates', () => {
  replayRecordedWrites('recorded-device-constraints.json');
});

describe('device constraints with the DRAConsumableCapacity gate', () => {
  replayRecordedWrites('recorded-device-constraints-consumable-capacity.json', [
    '--feature-gates=DRAConsumableCapacity=true',
  ]);
});
