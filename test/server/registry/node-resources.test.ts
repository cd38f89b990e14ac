/**
 * A Node's capacity and allocatable, as kube-apiserver 1.34.4 answered the same writes
 * (fixtures/recorded-node-resources.json): each amount is never negative and whole where the
 * resource is counted (pods, extended resources); names and huge page sizes are not checked. A
 * create checks them after the taints and before the pod CIDRs, a status write before the
 * addresses; a main update keeps the stored status, so what it sends there is not judged.
 */
import { replayRecordedWrites } from './recorded-writes';

describe('node capacity and allocatable', () => {
  replayRecordedWrites('recorded-node-resources.json');
});
