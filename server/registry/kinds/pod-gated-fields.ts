/**
 * The pod fields behind feature gates in 1.34 that can be switched, dropped while their gate is
 * off as the reference's pkg/api/pod dropDisabledFields and dropDisabledPodStatusFields drop
 * them (gates locked on are left out: their fields are never dropped). A Pod and every pod
 * template (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, PodTemplates,
 * ReplicationControllers) share the pod-spec families; only a Pod has a status.
 */
import type { KubeObject } from '../../../api/objects';
import type { Json } from '../defaults/fill';
import { isObject } from '../../json/value';
import { dropDisabledFieldsOf, gatedField, hasItems, isSet, listAt, objectAt, type GatedFields } from './gated-fields';

/** Every container of a pod spec, in the reference's order: init, regular, ephemeral. */
function containersOf(spec: unknown): Json[] {
  return [...listAt(spec, 'initContainers'), ...listAt(spec, 'containers'), ...listAt(spec, 'ephemeralContainers')];
}

/** Every container of the pod spec at `at`. */
function allContainers(object: KubeObject, at: string): Json[] {
  return containersOf(objectAt(object, at));
}

/** Every source of every projected volume. */
function projectedSources(object: KubeObject, at: string): Json[] {
  return listAt(object, `${at}.volumes`).flatMap((volume) => listAt(volume, 'projected.sources'));
}

/** A kind of projected source: the source entry stays, emptied, as the reference's does. */
function projectedSource(gate: string, source: string, at: string): GatedFields {
  return {
    gates: [gate],
    inUse: (object) => projectedSources(object, at).some((entry) => isSet(entry[source])),
    drop: (object) => {
      for (const entry of projectedSources(object, at)) delete entry[source];
    },
  };
}

/**
 * Per-container restart rules. An init container's `restartPolicy: Always` (a sidecar) is
 * older than the gate and stays; the gate owns its other values and every other container's
 * policy. The stored object uses the fields only through init containers and regular
 * containers' policies, as the reference's containerRestartRulesInUse looks.
 */
function containerRestartRules(at: string): GatedFields {
  const ownedInitPolicy = (container: Json) => isSet(container.restartPolicy) && container.restartPolicy !== 'Always';
  return {
    gates: ['ContainerRestartRules'],
    inUse: (object) =>
      listAt(object, `${at}.initContainers`).some(
        (container) => ownedInitPolicy(container) || hasItems(container.restartPolicyRules),
      ) || listAt(object, `${at}.containers`).some((container) => isSet(container.restartPolicy)),
    drop: (object) => {
      for (const container of listAt(object, `${at}.initContainers`)) {
        if (ownedInitPolicy(container)) delete container.restartPolicy;
        delete container.restartPolicyRules;
      }
      for (const container of [...listAt(object, `${at}.containers`), ...listAt(object, `${at}.ephemeralContainers`)]) {
        delete container.restartPolicy;
        delete container.restartPolicyRules;
      }
    },
  };
}

/** Resources for the whole pod: in use with requests or limits. */
function podLevelResources(at: string): GatedFields {
  const hasEntries = (value: unknown) => isObject(value) && Object.keys(value).length > 0;
  return {
    gates: ['PodLevelResources'],
    inUse: (object) => {
      const resources = objectAt(object, `${at}.resources`);
      return hasEntries(resources?.requests) || hasEntries(resources?.limits);
    },
    drop: (object) => {
      delete objectAt(object, at)?.resources;
    },
  };
}

/**
 * A container's procMount. The reference cannot clear it (an old release forced it to be set,
 * and clearing would change stored pods), so a set value becomes `Default`; only another value
 * is a use.
 */
function procMountType(at: string): GatedFields {
  const contexts = (object: KubeObject) =>
    allContainers(object, at).flatMap((container): Json[] => {
      const context = objectAt(container, 'securityContext');
      return context !== undefined && isSet(context.procMount) ? [context] : [];
    });
  return {
    gates: ['ProcMountType'],
    inUse: (object) => contexts(object).some((context) => context.procMount !== 'Default'),
    drop: (object) => {
      for (const context of contexts(object)) context.procMount = 'Default';
    },
  };
}

function matchLabelKeysInTopologySpread(at: string): GatedFields {
  const constraints = (object: KubeObject) => listAt(object, `${at}.topologySpreadConstraints`);
  return {
    gates: ['MatchLabelKeysInPodTopologySpread'],
    inUse: (object) => constraints(object).some((constraint) => hasItems(constraint.matchLabelKeys)),
    drop: (object) => {
      for (const constraint of constraints(object)) delete constraint.matchLabelKeys;
    },
  };
}

/** The pod's resource claims and the containers' requests of them; the pod's claims alone mark a use. */
function dynamicResourceAllocation(at: string): GatedFields {
  return {
    gates: ['DynamicResourceAllocation'],
    inUse: (object) => hasItems(objectAt(object, at)?.resourceClaims),
    drop: (object) => {
      for (const container of allContainers(object, at)) delete objectAt(container, 'resources')?.claims;
      delete objectAt(object, at)?.resourceClaims;
    },
  };
}

/** Containers' resize policies; an ephemeral container's does not count as a use. */
function inPlacePodVerticalScaling(at: string): GatedFields {
  return {
    gates: ['InPlacePodVerticalScaling'],
    inUse: (object) =>
      [...listAt(object, `${at}.initContainers`), ...listAt(object, `${at}.containers`)].some((container) =>
        hasItems(container.resizePolicy),
      ),
    drop: (object) => {
      for (const container of allContainers(object, at)) delete container.resizePolicy;
    },
  };
}

/** The `valueFrom` of every environment variable of a pod spec's containers. */
function envValueSources(spec: unknown): Json[] {
  return containersOf(spec).flatMap((container) =>
    listAt(container, 'env').flatMap((variable): Json[] => {
      const valueFrom = objectAt(variable, 'valueFrom');
      return valueFrom === undefined ? [] : [valueFrom];
    }),
  );
}

/** Whether a pod spec reads an environment variable from a file (EnvFiles); validation asks it of the stored spec. */
export function usesEnvFiles(spec: unknown): boolean {
  return envValueSources(spec).some((valueFrom) => isSet(valueFrom.fileKeyRef));
}

/** Environment variables read from a file: `valueFrom.fileKeyRef` (an emptied `valueFrom` stays, for validation to refuse). */
function envFiles(at: string): GatedFields {
  return {
    gates: ['EnvFiles'],
    inUse: (object) => usesEnvFiles(objectAt(object, at)),
    drop: (object) => {
      for (const valueFrom of envValueSources(objectAt(object, at))) delete valueFrom.fileKeyRef;
    },
  };
}

/** OCI image volumes: the volumes go, and so do the containers' mounts of them. */
function imageVolumes(at: string): GatedFields {
  return {
    gates: ['ImageVolume'],
    inUse: (object) => listAt(object, `${at}.volumes`).some((volume) => isSet(volume.image)),
    drop: (object) => {
      const spec = objectAt(object, at);
      const volumes = listAt(object, `${at}.volumes`);
      const imageVolumeNames = new Set(volumes.filter((volume) => isSet(volume.image)).map((volume) => volume.name));
      if (spec === undefined || imageVolumeNames.size === 0) return;
      withoutEmptyList(spec, 'volumes', (entry) => !imageVolumeNames.has(entry.name));
      for (const container of allContainers(object, at)) {
        withoutEmptyList(container, 'volumeMounts', (mount) => !imageVolumeNames.has(mount.name));
      }
    },
  };
}

/** Keeps the entries of a list that pass; a list left empty goes, as Go's nil slice is omitted. */
function withoutEmptyList(holder: Json, key: string, keep: (entry: Json) => boolean): void {
  const list = holder[key];
  if (!Array.isArray(list)) return;
  const kept = list.filter((entry: unknown) => typeof entry !== 'object' || entry === null || keep(entry as Json));
  if (kept.length === 0) delete holder[key];
  else holder[key] = kept;
}

/** A container's own stop signal; a lifecycle left with nothing set goes with it. */
function containerStopSignals(at: string): GatedFields {
  const lifecycles = (object: KubeObject) =>
    allContainers(object, at).flatMap((container): [Json, Json][] => {
      const lifecycle = objectAt(container, 'lifecycle');
      return lifecycle === undefined ? [] : [[container, lifecycle]];
    });
  return {
    gates: ['ContainerStopSignals'],
    inUse: (object) => lifecycles(object).some(([, lifecycle]) => isSet(lifecycle.stopSignal)),
    drop: (object) => {
      for (const [container, lifecycle] of lifecycles(object)) {
        if (!isSet(lifecycle.stopSignal)) continue;
        delete lifecycle.stopSignal;
        if (!Object.values(lifecycle).some(isSet)) delete container.lifecycle;
      }
    },
  };
}

/** Whether a pod spec sets how volumes get their SELinux label; validation asks it of the stored spec. */
export function usesSELinuxChangePolicy(spec: unknown): boolean {
  return isSet(objectAt(spec, 'securityContext')?.seLinuxChangePolicy);
}

function seLinuxChangePolicy(at: string): GatedFields {
  return {
    gates: ['SELinuxChangePolicy'],
    inUse: (object) => usesSELinuxChangePolicy(objectAt(object, at)),
    drop: (object) => {
      delete objectAt(object, `${at}.securityContext`)?.seLinuxChangePolicy;
    },
  };
}

/** The pod-spec families at `at`, in the reference's dropDisabledFields order. */
function podSpecFamilies(at: string): GatedFields[] {
  return [
    gatedField('UserNamespacesSupport', `${at}.hostUsers`),
    gatedField('SupplementalGroupsPolicy', `${at}.securityContext.supplementalGroupsPolicy`),
    podLevelResources(at),
    procMountType(at),
    matchLabelKeysInTopologySpread(at),
    dynamicResourceAllocation(at),
    projectedSource('ClusterTrustBundleProjection', 'clusterTrustBundle', at),
    projectedSource('PodCertificateRequest', 'podCertificate', at),
    inPlacePodVerticalScaling(at),
    containerRestartRules(at),
    gatedField('HostnameOverride', `${at}.hostnameOverride`),
    envFiles(at),
    imageVolumes(at),
    seLinuxChangePolicy(at),
    containerStopSignals(at),
  ];
}

function containerStatuses(pod: KubeObject): Json[] {
  return [
    ...listAt(pod, 'status.containerStatuses'),
    ...listAt(pod, 'status.initContainerStatuses'),
    ...listAt(pod, 'status.ephemeralContainerStatuses'),
  ];
}

/** A status family whose use is the stored pod's use of a pod-spec family. */
function statusOf(specFamily: GatedFields, drop: (pod: KubeObject) => void): GatedFields {
  return { gates: specFamily.gates, inUse: specFamily.inUse, drop };
}

function isNonZero(value: unknown): boolean {
  return isSet(value) && value !== 0;
}

/** The pod-status families, in the reference's dropDisabledPodStatusFields order. */
const podStatusFamilies: readonly GatedFields[] = [
  statusOf(inPlacePodVerticalScaling('spec'), (pod) => {
    for (const status of containerStatuses(pod)) {
      delete status.resources;
      delete status.allocatedResources;
    }
  }),
  statusOf(dynamicResourceAllocation('spec'), (pod) => {
    delete objectAt(pod, 'status')?.resourceClaimStatuses;
  }),
  {
    gates: ['DRAExtendedResource'],
    inUse: (pod) => isSet(objectAt(pod, 'status')?.extendedResourceClaimStatus),
    drop: (pod) => {
      delete objectAt(pod, 'status')?.extendedResourceClaimStatus;
    },
  },
  {
    // The kubelet's device health reports: dropped while the gate is off, whatever the stored pod has.
    gates: ['ResourceHealthStatus'],
    inUse: () => false,
    drop: (pod) => {
      for (const status of containerStatuses(pod)) delete status.allocatedResourcesStatus;
    },
  },
  statusOf(gatedField('SupplementalGroupsPolicy', 'spec.securityContext.supplementalGroupsPolicy'), (pod) => {
    for (const status of containerStatuses(pod)) delete status.user;
  }),
  {
    gates: ['PodObservedGenerationTracking'],
    inUse: (pod) =>
      isNonZero(objectAt(pod, 'status')?.observedGeneration) ||
      listAt(pod, 'status.conditions').some((condition) => isNonZero(condition.observedGeneration)),
    drop: (pod) => {
      delete objectAt(pod, 'status')?.observedGeneration;
      for (const condition of listAt(pod, 'status.conditions')) delete condition.observedGeneration;
    },
  },
];

export const dropDisabledPodFields = dropDisabledFieldsOf([...podSpecFamilies('spec'), ...podStatusFamilies]);

/**
 * The reference's DropDisabledTemplateFields for a kind whose pod template is at `templateAt`,
 * with the kind's own gated fields (`kindFamilies`).
 */
export function dropDisabledPodTemplateFields(
  templateAt: string,
  kindFamilies: readonly GatedFields[] = [],
): ReturnType<typeof dropDisabledFieldsOf> {
  return dropDisabledFieldsOf([...kindFamilies, ...podSpecFamilies(`${templateAt}.spec`)]);
}
