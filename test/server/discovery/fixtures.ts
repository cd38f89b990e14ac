/**
 * A small registry and schema for discovery and OpenAPI tests: a namespaced kind with status and
 * scale (Deployment), a cluster-scoped one with finalize (Namespace), a plain core kind (Pod),
 * and a create-only review (SelfSubjectAccessReview), in two groups plus core.
 */
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import type { ResourceType } from '../../../server/registry/types';
import type { Definitions } from '../../../server/openapi/component-schemas';

type Declared = Pick<
  ResourceType,
  | 'group'
  | 'resource'
  | 'singular'
  | 'kind'
  | 'namespaced'
  | 'versions'
  | 'shortNames'
  | 'categories'
  | 'verbs'
  | 'subresources'
> &
  Partial<ResourceType>;

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

function resourceType(declared: Declared): ResourceType {
  return {
    listKind: `${declared.kind}List`,
    storageVersion: declared.versions[0].version,
    storagePrefix: declared.resource,
    nameRule: 'dns-subdomain',
    selectableFields: {},
    strategy: {},
    ...declared,
  };
}

export const FIXTURE_TYPES: readonly ResourceType[] = [
  resourceType({
    group: '',
    resource: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    versions: [{ version: 'v1', definition: 'io.k8s.api.core.v1.Namespace' }],
    shortNames: ['ns'],
    categories: [],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: { status: true, finalize: true },
  }),
  resourceType({
    group: '',
    resource: 'pods',
    singular: 'pod',
    kind: 'Pod',
    namespaced: true,
    versions: [{ version: 'v1', definition: 'io.k8s.api.core.v1.Pod' }],
    shortNames: ['po'],
    categories: ['all'],
    verbs: ALL_VERBS,
    subresources: { status: true },
  }),
  resourceType({
    group: 'apps',
    resource: 'deployments',
    singular: 'deployment',
    kind: 'Deployment',
    namespaced: true,
    versions: [{ version: 'v1', definition: 'io.k8s.api.apps.v1.Deployment' }],
    shortNames: ['deploy'],
    categories: ['all'],
    verbs: ALL_VERBS,
    subresources: {
      status: true,
      scale: {
        specReplicasPath: 'spec.replicas',
        statusReplicasPath: 'status.replicas',
        labelSelectorPath: 'status.selector',
      },
    },
  }),
  resourceType({
    group: 'authorization.k8s.io',
    resource: 'selfsubjectaccessreviews',
    singular: 'selfsubjectaccessreview',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
    versions: [{ version: 'v1', definition: 'io.k8s.api.authorization.v1.SelfSubjectAccessReview' }],
    shortNames: [],
    categories: [],
    verbs: ['create'],
    subresources: {},
    virtual: true,
  }),
];

/** The registry as the server has it, starting with the fixture types instead of the built-in ones. */
export function fixtureRegistry(initial: readonly ResourceType[] = FIXTURE_TYPES): ResourceTypeRegistry {
  return new ResourceTypeRegistry({ types: initial });
}

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const gvk = (group: string, version: string, kind: string) => ({
  'x-kubernetes-group-version-kind': [{ group, kind, version }],
});
const objectOf = (properties: Record<string, object>, extra: object = {}) => ({ type: 'object', properties, ...extra });
const kindDefinition = (spec: string, group: string, kind: string) =>
  objectOf(
    {
      apiVersion: { type: 'string', 'x-capstan-protobuf': { field: 1 } },
      kind: { type: 'string' },
      metadata: { ...ref(`${META}.ObjectMeta`), default: {} },
      spec: ref(spec),
    },
    gvk(group, 'v1', kind),
  );

/** OpenAPI v2 definitions in the form the schema generator writes, including its private keyword. */
export const FIXTURE_DEFINITIONS: Definitions = {
  'io.k8s.api.apps.v1.Deployment': kindDefinition('io.k8s.api.apps.v1.DeploymentSpec', 'apps', 'Deployment'),
  'io.k8s.api.apps.v1.DeploymentList': objectOf(
    { items: { type: 'array', items: ref('io.k8s.api.apps.v1.Deployment') }, metadata: ref(`${META}.ListMeta`) },
    gvk('apps', 'v1', 'DeploymentList'),
  ),
  'io.k8s.api.apps.v1.DeploymentSpec': objectOf({
    replicas: { type: 'integer', format: 'int32' },
    strategy: { ...ref('io.k8s.api.apps.v1.DeploymentStrategy'), default: {} },
  }),
  'io.k8s.api.apps.v1.DeploymentStrategy': objectOf({
    rollingUpdate: ref('io.k8s.api.apps.v1.RollingUpdateDeployment'),
    type: { type: 'string', enum: ['Recreate', 'RollingUpdate'] },
  }),
  'io.k8s.api.apps.v1.RollingUpdateDeployment': objectOf({
    maxSurge: ref('io.k8s.apimachinery.pkg.util.intstr.IntOrString'),
    maxUnavailable: ref('io.k8s.apimachinery.pkg.util.intstr.IntOrString'),
  }),
  'io.k8s.api.autoscaling.v1.Scale': kindDefinition('io.k8s.api.autoscaling.v1.ScaleSpec', 'autoscaling', 'Scale'),
  'io.k8s.api.autoscaling.v1.ScaleSpec': objectOf({ replicas: { type: 'integer', format: 'int32' } }),
  'io.k8s.api.core.v1.Namespace': kindDefinition('io.k8s.api.core.v1.NamespaceSpec', '', 'Namespace'),
  'io.k8s.api.core.v1.NamespaceList': objectOf({
    items: { type: 'array', items: ref('io.k8s.api.core.v1.Namespace') },
  }),
  'io.k8s.api.core.v1.NamespaceSpec': objectOf({ finalizers: { type: 'array', items: { type: 'string' } } }),
  'io.k8s.api.core.v1.Pod': kindDefinition('io.k8s.api.core.v1.PodSpec', '', 'Pod'),
  'io.k8s.api.core.v1.PodList': objectOf({ items: { type: 'array', items: ref('io.k8s.api.core.v1.Pod') } }),
  'io.k8s.api.core.v1.PodSpec': objectOf({
    containers: {
      type: 'array',
      items: { type: 'object' },
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-list-type': 'map',
    },
  }),
  'io.k8s.api.authorization.v1.SelfSubjectAccessReview': objectOf(
    { spec: { type: 'object' } },
    gvk('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview'),
  ),
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { type: 'string', format: 'int-or-string' },
  [`${META}.APIResourceList`]: objectOf({ groupVersion: { type: 'string' } }),
  [`${META}.DeleteOptions`]: objectOf({ dryRun: { type: 'array', items: { type: 'string' } } }),
  [`${META}.ListMeta`]: objectOf({ resourceVersion: { type: 'string' } }),
  [`${META}.ObjectMeta`]: objectOf({ name: { type: 'string' }, namespace: { type: 'string' } }),
  [`${META}.Patch`]: { type: 'object' },
  [`${META}.Status`]: objectOf({ code: { type: 'integer', format: 'int32' } }),
  [`${META}.WatchEvent`]: objectOf({ type: { type: 'string' }, object: { type: 'object' } }),
};
