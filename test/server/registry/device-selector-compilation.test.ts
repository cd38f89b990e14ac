/**
 * DRA device selectors compiled as kube-apiserver 1.34.4 compiled the same writes
 * (fixtures/recorded-device-selector-*.json): in the environment of the `device` variable
 * (driver, attributes as values of the unknown type, capacity as quantities, and
 * allowMultipleAllocations only with the DRAConsumableCapacity gate), with the base libraries of
 * new expressions and `cel.bind`; syntax and type errors as cel-go words them, a result that is
 * neither a bool nor of the unknown type, an estimated cost over the runtime limit (sizes by
 * field path: a domain selected by name has none); in classes, claims' exact and first-available
 * requests, templates and taint rules, in v1, v1beta1 and v1beta2. An update runs the rules
 * twice, the second time on unchanged selectors (or a claim's immutable spec) as stored
 * expressions.
 */
import { replayRecordedWrites } from './recorded-writes';

describe('device selectors at the default feature gates', () => {
  replayRecordedWrites('recorded-device-selector-compilation.json');
});

describe('device selectors in the beta versions and taint rules', () => {
  replayRecordedWrites('recorded-device-selector-compilation-gated.json', [
    '--runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true,resource.k8s.io/v1alpha3=true',
    '--feature-gates=DRADeviceTaints=true',
  ]);
});

describe('device selectors with the DRAConsumableCapacity gate', () => {
  replayRecordedWrites('recorded-device-selector-consumable-capacity.json', [
    '--feature-gates=DRAConsumableCapacity=true',
  ]);
});
