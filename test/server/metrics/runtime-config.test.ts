/**
 * `--runtime-config` over the built-in registry and a fixture with alpha and deprecated beta
 * versions: precedence of resource, group-version, stability class and api/all, and rejections.
 */
import { runtimeConfigEnabled, RuntimeConfigError } from '../../../server/config/runtime-config';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import type { ResourceType } from '../../../server/registry/types';

import type { GroupVersion } from '../../../api/identity';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
const deployments = BUILTIN_TYPES.find((type) => type.group === 'apps' && type.resource === 'deployments')!;
// A fixture: the same kind also served in a deprecated beta and an alpha version.
const widgets: ResourceType = {
  ...deployments,
  group: 'example.capstan.io',
  resource: 'widgets',
  kind: 'Widget',
  versions: [
    deployments.versions[0],
    {
      ...deployments.versions[0],
      version: 'v1beta1',
      deprecated: true,
      deprecationWarning:
        'example.capstan.io/v1beta1 Widget is deprecated in v1.30+, unavailable in v1.33+; use example.capstan.io/v1 Widget',
    },
    { ...deployments.versions[0], version: 'v1alpha1' },
  ],
};
const types = [...BUILTIN_TYPES, widgets];
const known: GroupVersion[] = types.flatMap((type) =>
  type.versions.map(({ version }) => ({ group: type.group, version })),
);

function served(config: Record<string, string>): (group: string, version: string, resource: string) => boolean {
  const registry = new ResourceTypeRegistry({ types, enabled: runtimeConfigEnabled({ config, known }) });
  return (group, version, resource) => registry.find({ group, version }, resource) !== undefined;
}

describe('--runtime-config', () => {
  it('serves GA versions by default and neither beta nor alpha ones, as 1.34 does', () => {
    const isServed = served({});
    expect(isServed('apps', 'v1', 'deployments')).toBe(true);
    expect(isServed('', 'v1', 'pods')).toBe(true);
    expect(isServed('example.capstan.io', 'v1beta1', 'widgets')).toBe(false);
    expect(isServed('resource.k8s.io', 'v1beta2', 'resourceclaims')).toBe(false);
    expect(served({ 'api/beta': 'true' })('example.capstan.io', 'v1beta1', 'widgets')).toBe(true);
    expect(served({ 'resource.k8s.io/v1beta2': 'true' })('resource.k8s.io', 'v1beta2', 'resourceclaims')).toBe(true);
    expect(isServed('example.capstan.io', 'v1alpha1', 'widgets')).toBe(false);
  });

  it('lets the most specific key win: resource, group-version, stability, api/all', () => {
    const isServed = served({
      'api/all': 'false',
      'api/v1': 'true',
      'apps/v1': 'true',
      'apps/v1/deployments': 'false',
      'api/alpha': 'true',
    });
    expect(isServed('', 'v1', 'pods')).toBe(true);
    expect(isServed('apps', 'v1', 'statefulsets')).toBe(true);
    expect(isServed('apps', 'v1', 'deployments')).toBe(false);
    expect(isServed('batch', 'v1', 'jobs')).toBe(false);
    expect(isServed('example.capstan.io', 'v1alpha1', 'widgets')).toBe(true);
    expect(isServed('example.capstan.io', 'v1beta1', 'widgets')).toBe(false);
    expect(served({ 'api/beta': 'false' })('example.capstan.io', 'v1beta1', 'widgets')).toBe(false);
    expect(served({ 'example.capstan.io/v1beta1': 'f' })('example.capstan.io', 'v1', 'widgets')).toBe(true);
  });

  it('rejects unknown group-versions and values that are not booleans', () => {
    expect(() => runtimeConfigEnabled({ config: { 'nothing.io/v1': 'true', 'apps/v9': 'false' }, known })).toThrow(
      new RuntimeConfigError('unknown api groups apps/v9,nothing.io/v1'),
    );
    expect(() => runtimeConfigEnabled({ config: { 'apps/v1': 'yes' }, known })).toThrow(RuntimeConfigError);
  });
});
