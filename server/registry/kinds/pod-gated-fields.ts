/**
 * The pod fields behind feature gates that are off by default in 1.34, dropped as the
 * reference's pkg/api/pod dropDisabledFields and dropDisabledPodStatusFields drop them. A Pod
 * and every pod template (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs,
 * PodTemplates, ReplicationControllers) share the pod-spec families; only a Pod has a status.
 */
import type { KubeObject } from '../../../api/objects';
import type { Json } from '../defaults/fill';
import { dropDisabledFieldsOf, hasItems, isSet, listAt, objectAt, type GatedFields } from './gated-fields';

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

function hostnameOverride(at: string): GatedFields {
  return {
    gates: ['HostnameOverride'],
    inUse: (object) => isSet(objectAt(object, at)?.hostnameOverride),
    drop: (object) => {
      delete objectAt(object, at)?.hostnameOverride;
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

/** The pod-spec families at `at`, in the reference's dropDisabledFields order. */
function podSpecFamilies(at: string): GatedFields[] {
  return [
    projectedSource('ClusterTrustBundleProjection', 'clusterTrustBundle', at),
    projectedSource('PodCertificateRequest', 'podCertificate', at),
    containerRestartRules(at),
    hostnameOverride(at),
    envFiles(at),
    imageVolumes(at),
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

/** The pod-status families, in the reference's dropDisabledPodStatusFields order. */
const podStatusFamilies: readonly GatedFields[] = [
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
];

export const dropDisabledPodFields = dropDisabledFieldsOf([...podSpecFamilies('spec'), ...podStatusFamilies]);

/** The reference's DropDisabledTemplateFields for a kind whose pod template is at `templateAt`. */
export function dropDisabledPodTemplateFields(templateAt: string): ReturnType<typeof dropDisabledFieldsOf> {
  return dropDisabledFieldsOf(podSpecFamilies(`${templateAt}.spec`));
}
