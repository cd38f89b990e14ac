/**
 * `--runtime-config` over the built-in registry and a fixture with alpha and deprecated beta
 * versions: precedence of resource, group-version, stability class and api/all, and rejections.
 */
import { runtimeConfigEnabled, RuntimeConfigError } from '../../../server/config/runtime-config';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import type { ResourceType } from '../../../server/registry/types';

import type { GroupVersion } from '../../../api/identity';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { REGISTERED_GROUP_VERSIONS } from '../../../server/config/registered-group-versions';
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
const registered: GroupVersion[] = [
  ...REGISTERED_GROUP_VERSIONS,
  ...widgets.versions.map(({ version }) => ({ group: widgets.group, version })),
];

function served(config: Record<string, string>): (group: string, version: string, resource: string) => boolean {
  const registry = new ResourceTypeRegistry({ types, enabled: runtimeConfigEnabled({ config, registered }) });
  return (group, version, resource) => registry.find({ group, version }, resource) !== undefined;
}

describe('--runtime-config', () => {
  it('serves GA and beta versions and not alpha ones by default', () => {
    const isServed = served({});
    expect(isServed('apps', 'v1', 'deployments')).toBe(true);
    expect(isServed('', 'v1', 'pods')).toBe(true);
    expect(isServed('example.capstan.io', 'v1alpha1', 'widgets')).toBe(false);
    expect(served({ 'api/beta': 'true' })('example.capstan.io', 'v1beta1', 'widgets')).toBe(true);
    // A key without a value turns its group-version on.
    expect(served({ 'example.capstan.io/v1beta1': '' })('example.capstan.io', 'v1beta1', 'widgets')).toBe(true);
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

  it('refuses what the reference refuses, with its messages', () => {
    const refusal = (config: Record<string, string>) => () => runtimeConfigEnabled({ config, registered });
    expect(refusal({ 'nothing.io/v1': 'true', 'apps/v1': 'false', 'aaa.io/v1/things': 'true' })).toThrow(
      new RuntimeConfigError('unknown api groups aaa.io,nothing.io'),
    );
    expect(refusal({ 'apps/v9': 'true' })).toThrow(
      new RuntimeConfigError('group version apps/v9 that has not been registered'),
    );
    expect(refusal({ 'api/all': 'false' })).toThrow(new RuntimeConfigError('invalid key with only api/all=false'));
    expect(refusal({ 'api/all': 'false', 'nothing.io/v1': 'true' })).toThrow(
      new RuntimeConfigError('unknown api groups nothing.io'),
    );
    expect(() =>
      runtimeConfigEnabled({ config: { 'api/all': 'false' }, registered, priorityAndFairness: true }),
    ).toThrow(
      new RuntimeConfigError(
        '[--runtime-config=api/all=false conflicts with --enable-priority-and-fairness=true, invalid key with only api/all=false]',
      ),
    );
    expect(refusal({ 'a/b/c/d': 'true' })).toThrow(new RuntimeConfigError('runtime-config invalid key a/b/c/d'));
    expect(refusal({ 'api/beta': '1' })).toThrow(new RuntimeConfigError('invalid value api/beta=1'));
    expect(refusal({ 'api/all': '' })).toThrow(new RuntimeConfigError('invalid value api/all='));
    expect(refusal({ 'apps/v1/deployments': 'maybe' })).toThrow(
      new RuntimeConfigError(
        'invalid value of apps/v1/deployments: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
      ),
    );
    expect(refusal({ 'apps/v1/Deployments': 'true' })).toThrow(
      new RuntimeConfigError(
        'invalid key apps/v1/Deployments: group/version/resource and resource is always lowercase plural, not "Deployments"',
      ),
    );
  });

  it('accepts every group-version the reference registers, served or not', () => {
    const isServed = served({
      'authorization.k8s.io/v1beta1': 'true',
      'extensions/v1beta1': 'true',
      'apiextensions.k8s.io/v1beta1': 'true',
      'imagepolicy.k8s.io/v1alpha1': 'true',
    });
    expect(isServed('authorization.k8s.io', 'v1beta1', 'subjectaccessreviews')).toBe(false);
    expect(isServed('apps', 'v1', 'deployments')).toBe(true);
  });

  it('registers every version a built-in type can serve', () => {
    const keys = new Set(REGISTERED_GROUP_VERSIONS.map(({ group, version }) => `${group}/${version}`));
    const missing = BUILTIN_TYPES.flatMap((type) =>
      type.versions.map(({ version }) => `${type.group}/${version}`),
    ).filter((key) => !keys.has(key));
    expect(missing).toEqual([]);
  });
});
