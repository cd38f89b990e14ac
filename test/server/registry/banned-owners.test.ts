/**
 * Owner references that name a core v1 Event, as kube-apiserver 1.34.4 answered the same writes
 * (fixtures/recorded-banned-owners.json): such an owner is refused after its other errors, with
 * the whole reference as the value; an events.k8s.io Event, another version or a kind in other
 * case may own. An update reports it once for each time the reference checks the metadata.
 */
import { replayRecordedWrites } from './recorded-writes';

describe('banned owners', () => {
  replayRecordedWrites('recorded-banned-owners.json');
});
