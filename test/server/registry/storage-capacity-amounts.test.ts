/**
 * A CSIStorageCapacity's rules, as kube-apiserver 1.34.4 answered the same writes
 * (fixtures/recorded-storage-capacity-amounts.json): its node topology is a label selector, its
 * class a DNS subdomain, its capacity not negative (shown in canonical form); its maximum volume
 * size is not judged. An update runs them before the immutability of topology and class.
 */
import { replayRecordedWrites } from './recorded-writes';

describe('storage capacity amounts', () => {
  replayRecordedWrites('recorded-storage-capacity-amounts.json');
});
