/**
 * A HorizontalPodAutoscaler's status write, in v2 and v1, as kube-apiserver 1.34.4 answered the
 * same writes (fixtures/recorded-autoscaler-status-counts.json): after the metadata, its current
 * and desired replica counts may not be negative; nothing else of the status is judged, and the
 * spec it sends is not its own. A main update and a create keep the status the server decides.
 */
import { replayRecordedWrites } from './recorded-writes';

describe('autoscaler status counts', () => {
  replayRecordedWrites('recorded-autoscaler-status-counts.json');
});
