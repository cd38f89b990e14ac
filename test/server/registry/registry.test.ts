import { storageGroupVersion, type ResourceType } from '../../../server/registry/types';
import { builtinRegistry } from '../../../server/builtin-types';

const registry = builtinRegistry();

/** [group, version, resource, kind, namespaced, shortNames, storagePrefix] */
const EXPECTED: [string, string, string, string, boolean, string[], string][] = [
  ['', 'v1', 'namespaces', 'Namespace', false, ['ns'], 'namespaces'],
  ['', 'v1', 'pods', 'Pod', true, ['po'], 'pods'],
  ['', 'v1', 'services', 'Service', true, ['svc'], 'services/specs'],
  ['', 'v1', 'configmaps', 'ConfigMap', true, ['cm'], 'configmaps'],
  ['', 'v1', 'secrets', 'Secret', true, [], 'secrets'],
  ['', 'v1', 'serviceaccounts', 'ServiceAccount', true, ['sa'], 'serviceaccounts'],
  ['', 'v1', 'nodes', 'Node', false, ['no'], 'minions'],
  ['', 'v1', 'events', 'Event', true, ['ev'], 'events'],
  ['', 'v1', 'endpoints', 'Endpoints', true, ['ep'], 'services/endpoints'],
  ['', 'v1', 'persistentvolumes', 'PersistentVolume', false, ['pv'], 'persistentvolumes'],
  ['', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, ['pvc'], 'persistentvolumeclaims'],
  ['', 'v1', 'limitranges', 'LimitRange', true, ['limits'], 'limitranges'],
  ['', 'v1', 'resourcequotas', 'ResourceQuota', true, ['quota'], 'resourcequotas'],
  ['', 'v1', 'podtemplates', 'PodTemplate', true, [], 'podtemplates'],
  ['', 'v1', 'replicationcontrollers', 'ReplicationController', true, ['rc'], 'controllers'],
  ['apps', 'v1', 'deployments', 'Deployment', true, ['deploy'], 'deployments'],
  ['apps', 'v1', 'replicasets', 'ReplicaSet', true, ['rs'], 'replicasets'],
  ['apps', 'v1', 'statefulsets', 'StatefulSet', true, ['sts'], 'statefulsets'],
  ['apps', 'v1', 'daemonsets', 'DaemonSet', true, ['ds'], 'daemonsets'],
  ['apps', 'v1', 'controllerrevisions', 'ControllerRevision', true, [], 'controllerrevisions'],
  ['batch', 'v1', 'jobs', 'Job', true, [], 'jobs'],
  ['batch', 'v1', 'cronjobs', 'CronJob', true, ['cj'], 'cronjobs'],
  ['coordination.k8s.io', 'v1', 'leases', 'Lease', true, [], 'leases'],
  ['events.k8s.io', 'v1', 'events', 'Event', true, ['ev'], 'events'],
  ['discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true, [], 'endpointslices'],
  ['policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, ['pdb'], 'poddisruptionbudgets'],
  ['networking.k8s.io', 'v1', 'ingresses', 'Ingress', true, ['ing'], 'ingress'],
  ['networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass', false, [], 'ingressclasses'],
  ['networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true, ['netpol'], 'networkpolicies'],
  ['scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false, ['pc'], 'priorityclasses'],
  ['storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false, ['sc'], 'storageclasses'],
  ['rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true, [], 'roles'],
  ['rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false, [], 'clusterroles'],
  ['rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true, [], 'rolebindings'],
  ['rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false, [], 'clusterrolebindings'],
  [
    'certificates.k8s.io',
    'v1',
    'certificatesigningrequests',
    'CertificateSigningRequest',
    false,
    ['csr'],
    'certificatesigningrequests',
  ],
  [
    'autoscaling',
    'v2',
    'horizontalpodautoscalers',
    'HorizontalPodAutoscaler',
    true,
    ['hpa'],
    'horizontalpodautoscalers',
  ],
  [
    'autoscaling',
    'v1',
    'horizontalpodautoscalers',
    'HorizontalPodAutoscaler',
    true,
    ['hpa'],
    'horizontalpodautoscalers',
  ],
];

describe('ResourceTypeRegistry lookups', () => {
  test.each(EXPECTED)(
    '%s/%s %s resolves by resource and by kind',
    (group, version, resource, kind, namespaced, shortNames, storagePrefix) => {
      const byResource = registry.find({ group, version }, resource);
      expect(byResource).toBeDefined();
      const type = byResource as ResourceType;
      expect(type.kind).toBe(kind);
      expect(type.listKind).toBe(`${kind}List`);
      expect(type.singular).toBe(kind.toLowerCase());
      expect(type.namespaced).toBe(namespaced);
      expect([...type.shortNames]).toEqual(shortNames);
      expect(type.storagePrefix).toBe(storagePrefix);
      expect(registry.findKind({ group, version, kind })).toBe(type);
    },
  );

  test('unknown resources and versions are not found', () => {
    expect(registry.find({ group: '', version: 'v1' }, 'widgets')).toBeUndefined();
    expect(registry.find({ group: 'apps', version: 'v1beta1' }, 'deployments')).toBeUndefined();
    expect(registry.findKind({ group: 'apps', version: 'v1', kind: 'Pod' })).toBeUndefined();
  });

  test('all() is ordered by group, then resource', () => {
    const keys = registry.all().map((t) => `${t.group}/${t.resource}`);
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b)));
    expect(keys[0]).toBe('/bindings'); // the legacy core v1 bindings collection, as the reference serves it
  });

  test('autoscaling serves v2 (preferred, stored) and v1', () => {
    const hpa = registry.find({ group: 'autoscaling', version: 'v1' }, 'horizontalpodautoscalers') as ResourceType;
    expect(hpa.versions.map((v) => v.version)).toEqual(['v2', 'v1']);
    expect(hpa.storageVersion).toBe('v2');
    expect(hpa.versions[1].definition).toBe('io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler');
  });

  test('events.k8s.io Events are stored as core v1 Events', () => {
    const events = registry.find({ group: 'events.k8s.io', version: 'v1' }, 'events') as ResourceType;
    expect(storageGroupVersion(events)).toEqual({ group: '', version: 'v1' });
    expect(events.storagePrefix).toBe('events');
  });

  test.each([
    ['namespaces', '', ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']],
    ['pods', '', ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']],
  ])('verbs of %s', (resource, group, verbs) => {
    expect(registry.find({ group, version: 'v1' }, resource)?.verbs).toEqual(verbs);
  });

  test.each([
    ['namespaces', '', 'dns-label'],
    ['services', '', 'dns1035-label'],
    ['pods', '', 'dns-subdomain'],
    ['roles', 'rbac.authorization.k8s.io', 'path-segment'],
  ])('name rule of %s', (resource, group, rule) => {
    expect(registry.find({ group, version: 'v1' }, resource)?.nameRule).toBe(rule);
  });

  test('subresources and categories', () => {
    const deployments = registry.find({ group: 'apps', version: 'v1' }, 'deployments') as ResourceType;
    expect(deployments.subresources).toEqual({
      status: true,
      scale: {
        specReplicasPath: 'spec.replicas',
        statusReplicasPath: 'status.replicas',
        labelSelectorPath: 'status.selector',
        checksMetadata: true,
      },
    });
    expect(deployments.categories).toEqual(['all']);
    expect(registry.find({ group: '', version: 'v1' }, 'namespaces')?.subresources).toEqual({
      status: true,
      finalize: true,
    });
  });

  test('selectable fields read the reference values, with its defaults for absent fields', () => {
    const pods = registry.find({ group: '', version: 'v1' }, 'pods') as ResourceType;
    const pod = { metadata: { name: 'p' }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } };
    expect(pods.selectableFields['spec.nodeName'](pod)).toBe('n1');
    expect(pods.selectableFields['status.phase'](pod)).toBe('Running');
    expect(pods.selectableFields['spec.hostNetwork'](pod)).toBe('false');
    const events = registry.find({ group: '', version: 'v1' }, 'events') as ResourceType;
    expect(events.selectableFields['source']({ metadata: {}, source: { component: 'kubelet' } })).toBe('kubelet');
    // A ReplicationController selects on status.replicas; an apps/v1 ReplicaSet selects on no field of its own.
    const rc = registry.find({ group: '', version: 'v1' }, 'replicationcontrollers') as ResourceType;
    expect(rc.selectableFields['status.replicas']({ metadata: {} })).toBe('0');
    const rs = registry.find({ group: 'apps', version: 'v1' }, 'replicasets') as ResourceType;
    expect(rs.selectableFields).toEqual({});
  });

  test('enabled() narrows what is served', () => {
    const narrowed = builtinRegistry({
      enabled: (gv, resource) =>
        !(gv.group === 'batch') && !(gv.group === 'autoscaling' && gv.version === 'v1') && resource !== 'secrets',
    });
    expect(narrowed.find({ group: 'batch', version: 'v1' }, 'jobs')).toBeUndefined();
    expect(narrowed.find({ group: '', version: 'v1' }, 'secrets')).toBeUndefined();
    expect(narrowed.find({ group: 'autoscaling', version: 'v1' }, 'horizontalpodautoscalers')).toBeUndefined();
    expect(
      narrowed
        .find({ group: 'autoscaling', version: 'v2' }, 'horizontalpodautoscalers')
        ?.versions.map((v) => v.version),
    ).toEqual(['v2']);
  });
});

describe('store behaviour facts of the built-in kinds, as the reference sets them', () => {
  const qualified = (predicate: (type: ResourceType) => boolean | undefined): string[] =>
    registry
      .all()
      .filter((type) => predicate(type) === true)
      .map((type) => (type.group ? `${type.resource}.${type.group}` : type.resource))
      .sort();

  it('returns the deleted object from DELETE for the kinds the reference returns it for', () => {
    // Asked of a v1.34.4 server: a Service, ServiceAccount, PVC and VolumeAttachment come back
    // whole; a ConfigMap, Secret, Node, Deployment answer a Status. Its OpenAPI v3 document of
    // api/v1 (test/server/openapi/fixtures) says so of PodTemplate and ResourceQuota too; the
    // storage and resource kinds are those whose storage sets ReturnDeletedObject in its sources.
    expect(qualified((type) => type.returnsDeletedObject)).toEqual([
      'csidrivers.storage.k8s.io',
      'csinodes.storage.k8s.io',
      'deviceclasses.resource.k8s.io',
      'namespaces',
      'persistentvolumeclaims',
      'persistentvolumes',
      'pods',
      'podtemplates',
      'resourceclaims.resource.k8s.io',
      'resourceclaimtemplates.resource.k8s.io',
      'resourcequotas',
      'resourceslices.resource.k8s.io',
      'serviceaccounts',
      'services',
      'storageclasses.storage.k8s.io',
      'volumeattachments.storage.k8s.io',
      'volumeattributesclasses.storage.k8s.io',
    ]);
  });

  it('creates on PUT only where the reference allows it', () => {
    expect(qualified((type) => type.allowCreateOnUpdate)).toEqual([
      'clusterrolebindings.rbac.authorization.k8s.io',
      'clusterroles.rbac.authorization.k8s.io',
      'endpoints',
      'endpointslices.discovery.k8s.io',
      'events',
      'events.events.k8s.io',
      'leases.coordination.k8s.io',
      'limitranges',
      'replicationcontrollers',
      'rolebindings.rbac.authorization.k8s.io',
      'roles.rbac.authorization.k8s.io',
      'services',
    ]);
  });

  it('refuses an unconditional PUT where the reference strategy does', () => {
    // The served kinds whose 1.34.4 strategy answers AllowUnconditionalUpdate false
    // (fixtures/unconditional-updates.json records some of them).
    expect(qualified((type) => type.requiresResourceVersionOnUpdate)).toEqual([
      'apiservices.apiregistration.k8s.io',
      'csidrivers.storage.k8s.io',
      'csinodes.storage.k8s.io',
      'csistoragecapacities.storage.k8s.io',
      'customresourcedefinitions.apiextensions.k8s.io',
      'leases.coordination.k8s.io',
      'mutatingwebhookconfigurations.admissionregistration.k8s.io',
      'poddisruptionbudgets.policy',
      'runtimeclasses.node.k8s.io',
      'validatingadmissionpolicies.admissionregistration.k8s.io',
      'validatingadmissionpolicybindings.admissionregistration.k8s.io',
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      'volumeattachments.storage.k8s.io',
    ]);
  });
});

describe('ResourceTypeRegistry changes while serving', () => {
  const deployments = builtinRegistry().find({ group: 'apps', version: 'v1' }, 'deployments') as ResourceType;
  const widgets: ResourceType = {
    ...deployments,
    group: 'example.dev',
    resource: 'widgets',
    singular: 'widget',
    kind: 'Widget',
    listKind: 'WidgetList',
    versions: [{ version: 'v1', definition: 'dev.example.v1.Widget' }],
    storageVersion: 'v1',
    storagePrefix: 'example.dev/widgets',
    shortNames: [],
    categories: [],
  };

  test('add, replace and remove are seen at once by lookups, all() and listeners', () => {
    const registry = builtinRegistry();
    const changes: { added: string[]; removed: string[] }[] = [];
    const stop = registry.onChange(({ added, removed }) =>
      changes.push({ added: added.map((t) => t.kind), removed: removed.map((t) => t.kind) }),
    );
    const before = registry.all();

    registry.add(widgets);
    expect(registry.find({ group: 'example.dev', version: 'v1' }, 'widgets')).toBe(widgets);
    expect(registry.findKind({ group: 'example.dev', version: 'v1', kind: 'Widget' })).toBe(widgets);
    expect(registry.all()).not.toBe(before);
    expect(registry.all()).toContain(widgets);
    expect(registry.all().map((t) => `${t.group}/${t.resource}`)).toEqual(
      [...registry.all().map((t) => `${t.group}/${t.resource}`)].sort((a, b) => a.localeCompare(b)),
    );

    // A replacement that serves another version: the old version's paths are gone.
    const v2: ResourceType = {
      ...widgets,
      versions: [{ version: 'v2', definition: 'dev.example.v2.Widget' }],
      storageVersion: 'v2',
    };
    registry.add(v2);
    expect(registry.find({ group: 'example.dev', version: 'v1' }, 'widgets')).toBeUndefined();
    expect(registry.find({ group: 'example.dev', version: 'v2' }, 'widgets')).toBe(v2);

    expect(registry.remove({ group: 'example.dev', resource: 'widgets' })).toBe(v2);
    expect(registry.find({ group: 'example.dev', version: 'v2' }, 'widgets')).toBeUndefined();
    expect(registry.findKind({ group: 'example.dev', version: 'v2', kind: 'Widget' })).toBeUndefined();
    expect(registry.remove({ group: 'example.dev', resource: 'widgets' })).toBeUndefined();
    expect(registry.all().map((t) => t.kind)).toEqual(before.map((t) => t.kind));

    stop();
    registry.add(widgets);
    expect(changes).toEqual([
      { added: ['Widget'], removed: [] },
      { added: ['Widget'], removed: ['Widget'] },
      { added: [], removed: ['Widget'] },
    ]);
  });

  test('removing one resource of a group-version leaves the others of that group-version served', () => {
    const registry = builtinRegistry();
    const gizmos: ResourceType = {
      ...widgets,
      resource: 'gizmos',
      kind: 'Gizmo',
      listKind: 'GizmoList',
      storagePrefix: 'example.dev/gizmos',
    };
    registry.add(widgets);
    registry.add(gizmos);
    registry.remove({ group: 'example.dev', resource: 'widgets' });
    expect(registry.find({ group: 'example.dev', version: 'v1' }, 'widgets')).toBeUndefined();
    expect(registry.find({ group: 'example.dev', version: 'v1' }, 'gizmos')).toBe(gizmos);
    expect(registry.findKind({ group: 'example.dev', version: 'v1', kind: 'Gizmo' })).toBe(gizmos);
    registry.remove({ group: 'example.dev', resource: 'gizmos' });
    registry.add(widgets);
    expect(registry.find({ group: 'example.dev', version: 'v1' }, 'widgets')).toBe(widgets);
    expect(registry.find({ group: '', version: 'v1' }, 'configmaps')?.kind).toBe('ConfigMap');
  });

  test('a kind another resource serves in the same group-version is refused', () => {
    const registry = builtinRegistry();
    registry.add(widgets);
    expect(() => registry.add({ ...widgets, resource: 'gizmos', storagePrefix: 'example.dev/gizmos' })).toThrow(
      'example.dev/v1 Widget is already served by widgets.example.dev',
    );
    expect(registry.find({ group: 'example.dev', version: 'v1' }, 'gizmos')).toBeUndefined();
  });

  test('storage prefixes stay apart unless they store the same objects', () => {
    const registry = builtinRegistry();
    // The keys of one would be listed by the other's cache.
    expect(() => registry.add({ ...widgets, storagePrefix: 'deployments/widgets' })).toThrow(
      'deployments.apps is stored under deployments',
    );
    expect(() => registry.add({ ...widgets, storagePrefix: 'pods' })).toThrow('pods is stored under pods');
    // A review stores nothing, wherever its prefix would be.
    registry.add({ ...widgets, storagePrefix: 'pods', virtual: true, verbs: ['create'] });
  });
});
