/** Which local APIServices autoregistration keeps: the reference's, for the built-in groups and for custom resources. */
import { localAPIServices } from '../../../server/aggregator/autoregistration';
import type { ResourceType } from '../../../server/registry/types';
import { BUILTIN_TYPES, builtinRegistry } from '../../../server/builtin-types';

/** `kubectl get apiservices` of a 1.34.4 kube-apiserver with default flags. */
const REFERENCE_NAMES = [
  'v1.',
  'v1.admissionregistration.k8s.io',
  'v1.apiextensions.k8s.io',
  'v1.apps',
  'v1.authentication.k8s.io',
  'v1.authorization.k8s.io',
  'v1.autoscaling',
  'v1.batch',
  'v1.certificates.k8s.io',
  'v1.coordination.k8s.io',
  'v1.discovery.k8s.io',
  'v1.events.k8s.io',
  'v1.flowcontrol.apiserver.k8s.io',
  'v1.networking.k8s.io',
  'v1.node.k8s.io',
  'v1.policy',
  'v1.rbac.authorization.k8s.io',
  'v1.resource.k8s.io',
  'v1.scheduling.k8s.io',
  'v1.storage.k8s.io',
  'v2.autoscaling',
];

/** The review kinds capstan registers at start (authentication and authorization groups). */
function withReviewGroups(types: readonly ResourceType[]): ResourceType[] {
  const review = (group: string): ResourceType => ({
    ...types[0],
    group,
    resource: 'reviews',
    versions: [{ version: 'v1', definition: 'x' }],
  });
  return [...types, review('authentication.k8s.io'), review('authorization.k8s.io')];
}

test('one onstart APIService per built-in group-version, with the reference priorities, none for apiregistration itself', () => {
  // What a server with no --runtime-config serves: no beta version.
  const served = builtinRegistry().all();
  const wanted = localAPIServices(withReviewGroups(served));
  expect([...wanted.keys()].sort()).toEqual(REFERENCE_NAMES);
  expect(wanted.get('v1.')).toEqual({
    name: 'v1.',
    label: 'onstart',
    spec: { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 },
  });
  expect(wanted.get('v1.apps')?.spec).toMatchObject({ groupPriorityMinimum: 17800, versionPriority: 15 });
  expect(wanted.get('v2.autoscaling')?.spec).toMatchObject({ groupPriorityMinimum: 17500, versionPriority: 30 });
});

test('a custom resource version gets priority 1000/100 and the label true', () => {
  const custom: ResourceType = {
    ...BUILTIN_TYPES[0],
    group: 'example.com',
    resource: 'widgets',
    versions: [
      { version: 'v1', definition: 'x' },
      { version: 'v2beta1', definition: 'y' },
    ],
    prune: () => [],
  };
  const wanted = localAPIServices([custom]);
  expect([...wanted.values()]).toEqual([
    {
      name: 'v1.example.com',
      label: 'true',
      spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 },
    },
    {
      name: 'v2beta1.example.com',
      label: 'true',
      spec: { group: 'example.com', version: 'v2beta1', groupPriorityMinimum: 1000, versionPriority: 100 },
    },
  ]);
});
