/**
 * A Node's `spec.configSource` and `status.config`, the removed DynamicKubeletConfig's fields. A
 * 1.34 server drops them from a create and keeps them only where the stored node already has
 * them (dropRemovedNodeConfig), yet still checks what it keeps on every update, as the
 * reference's ValidateNodeUpdate does: a spec's source names its ConfigMap without uid or
 * resourceVersion, a status's with both.
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, GoValue, invalid, required } from '../status/field-errors';
import { isObject } from '../json/value';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain } from './names';

interface ConfigMapSource {
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly kubeletConfigKey?: string;
}

type Json = Record<string, unknown>;

/**
 * A source's one reference, the ConfigMap: when it is not there "exactly one" fails, and the
 * internal struct printed is then always this.
 */
const NO_REFERENCE = new GoValue('{"ConfigMap":null}');

/** Removes the fields unless `old` (absent on create) holds them: the reference's preparations of a Node. */
export function dropRemovedNodeConfig(object: KubeObject, old: KubeObject | undefined): void {
  const held = (node: KubeObject | undefined, part: 'spec' | 'status', member: string) => {
    const value = node?.[part];
    return isObject(value) && value[member] != null;
  };
  if (!held(old, 'spec', 'configSource') && isObject(object.spec)) delete object.spec.configSource;
  if (!held(old, 'status', 'config') && isObject(object.status)) delete object.status.config;
}

export function validateNodeConfig(node: KubeObject): FieldError[] {
  const spec = isObject(node.spec) ? node.spec : {};
  const status = isObject(node.status) ? node.status : {};
  const errors: FieldError[] = [];
  if (spec.configSource != null)
    errors.push(...validateSource(spec.configSource as Json, FieldPath.root('spec', 'configSource'), 'spec'));
  if (isObject(status.config)) {
    const path = FieldPath.root('status', 'config');
    for (const member of ['assigned', 'active', 'lastKnownGood'])
      if (status.config[member] != null)
        errors.push(...validateSource(status.config[member] as Json, path.child(member), 'status'));
  }
  return errors;
}

function validateSource(source: Json, path: FieldPath, held: 'spec' | 'status'): FieldError[] {
  if (!isObject(source.configMap))
    return [invalid(path, NO_REFERENCE, 'exactly one reference subfield must be non-nil')];
  const configMap = source.configMap as ConfigMapSource;
  const at = path.child('configMap');
  return [...(held === 'spec' ? unpinned(configMap, at) : pinned(configMap, at)), ...target(configMap, at)];
}

/** A spec names a ConfigMap by name alone. */
function unpinned(configMap: ConfigMapSource, path: FieldPath): FieldError[] {
  return [
    ...(configMap.uid ? [forbidden(path.child('uid'), 'uid must not be set in spec')] : []),
    ...(configMap.resourceVersion
      ? [forbidden(path.child('resourceVersion'), 'resourceVersion must not be set in spec')]
      : []),
  ];
}

/** A status names the very ConfigMap the kubelet read. */
function pinned(configMap: ConfigMapSource, path: FieldPath): FieldError[] {
  return [
    ...(configMap.uid ? [] : [required(path.child('uid'))]),
    ...(configMap.resourceVersion ? [] : [required(path.child('resourceVersion'))]),
  ];
}

function target(configMap: ConfigMapSource, path: FieldPath): FieldError[] {
  const checked = (member: keyof ConfigMapSource, rule: (value: string) => string[]): FieldError[] => {
    const value = configMap[member];
    if (!value) return [required(path.child(member))];
    return rule(value).map((message) => invalid(path.child(member), value, message));
  };
  return [
    ...checked('namespace', isDNS1123Label),
    ...checked('name', isDNS1123Subdomain),
    ...checked('kubeletConfigKey', isConfigMapKey),
  ];
}
