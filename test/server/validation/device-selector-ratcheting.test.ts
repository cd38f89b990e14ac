/**
 * Stored DRA selectors are judged in the environment of stored expressions, as kube-apiserver
 * 1.34 judges them (its EnvSet's StoredExpressions, with the libraries of 1.34 itself), where a
 * new one is judged in that of its compatibility version, 1.33: the list extensions' `sort()`
 * came in 1.34, so a selector using it cannot be written, and one kept unchanged is accepted. A
 * DeviceTaintRule's update runs only its update rules, so the rule of an unchanged stored
 * selector is kept; a DeviceClass's update also runs its create rules, which refuse it again.
 * (The API cannot store such a selector, so this is checked on the validation functions.)
 */
import type { KubeObject } from '../../../api/objects';
import { fieldErrorText, type FieldError } from '../../../server/status/field-error';
import { featureGateReader } from '../../../server/config/feature-enabled';
import { validateDeviceClass, validateDeviceTaintRule } from '../../../server/validation/resource';

/** The 1.34 defaults: DRAConsumableCapacity off. */
const DEFAULT_GATES = featureGateReader({});

const SORTED = '[2, 1].sort() == [1, 2]';
const NOT_DECLARED = `Invalid value: "${SORTED}": compilation failed: ERROR: <input>:1:12: undeclared reference to 'sort' (in container '')`;

function taintRule(expression: string, key = 'k'): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1alpha3',
    kind: 'DeviceTaintRule',
    metadata: { name: 'r' },
    spec: { deviceSelector: { selectors: [{ cel: { expression } }] }, taint: { key, effect: 'NoSchedule' } },
  };
}

function deviceClass(expression: string, config: unknown[] = []): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: 'c' },
    spec: { selectors: [{ cel: { expression } }], config },
  };
}

/** Each error's first line (the source line and caret follow). */
const messages = (errors: readonly FieldError[]) => errors.map((error) => fieldErrorText(error).split('\n')[0]);

describe('stored device selectors', () => {
  test('a taint rule keeps an unchanged stored selector that a new one may not use', () => {
    const refused = [`spec.deviceSelector.selectors[0].cel.expression: ${NOT_DECLARED}`];
    expect(messages(validateDeviceTaintRule(taintRule(SORTED), DEFAULT_GATES))).toEqual(refused);
    expect(validateDeviceTaintRule(taintRule(SORTED, 'k2'), DEFAULT_GATES, taintRule(SORTED))).toEqual([]);
    expect(messages(validateDeviceTaintRule(taintRule(SORTED), DEFAULT_GATES, taintRule('true')))).toEqual(refused);
  });

  test("a DeviceClass's update rules keep an unchanged stored selector, its create rules do not", () => {
    const config = [{ opaque: { driver: 'example.com', parameters: {} } }];
    expect(messages(validateDeviceClass(deviceClass(SORTED, config), DEFAULT_GATES))).toEqual([
      `spec.selectors[0].cel.expression: ${NOT_DECLARED}`,
    ]);
    expect(validateDeviceClass(deviceClass(SORTED, config), DEFAULT_GATES, deviceClass(SORTED))).toEqual([]);
  });
});
