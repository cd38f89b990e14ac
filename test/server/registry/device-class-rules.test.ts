/**
 * A DeviceClass's selectors and config, as kube-apiserver 1.34.4 answered the same writes
 * (fixtures/recorded-device-class-rules.json): a CEL selector's expression is at most 10Ki and
 * fails to compile when empty or blank (an absent expression is an empty one), in a claim's
 * request too; opaque parameters must be a JSON object of at most 10Ki; the name, then the
 * selectors, then the config. An update runs the rules twice, as the reference's strategy does.
 */
import { replayRecordedWrites } from './recorded-writes';

describe('device class rules', () => {
  replayRecordedWrites('recorded-device-class-rules.json');
});
