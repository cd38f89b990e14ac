/**
 * The checks the restricted Pod Security Standard adds to baseline, one function per check, as
 * baseline.ts. Windows pods are spared the Linux-only ones from 1.25.
 */
import { seccompSetters } from './baseline';
import {
  ALLOWED,
  containerName,
  containers,
  containersPhrase,
  forbid,
  isWindows,
  joinQuote,
  list,
  pluralize,
  present,
  record,
  securityContext,
  sorted,
  strings,
  type CheckResult,
  type Fields,
  type PodView,
} from './pod-view';

/** The volume sources restricted pods may use. */
const ALLOWED_VOLUME_SOURCES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
];
/** The others, in the order the reference names the first one a volume has. */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

export function restrictedVolumes({ spec }: PodView): CheckResult {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const volume of list(spec.volumes)) {
    if (ALLOWED_VOLUME_SOURCES.some((source) => present(volume[source]))) continue;
    bad.push(String(volume.name ?? ''));
    types.add(RESTRICTED_VOLUME_SOURCES.find((source) => present(volume[source])) ?? 'unknown');
  }
  if (bad.length === 0) return ALLOWED;
  return forbid(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', types.size)} ${joinQuote(sorted(types))}`,
  );
}

export function allowPrivilegeEscalation1_8({ spec }: PodView): CheckResult {
  const bad = containers(spec)
    .filter((container) => securityContext(container).allowPrivilegeEscalation !== false)
    .map(containerName);
  return bad.length === 0
    ? ALLOWED
    : forbid(
        'allowPrivilegeEscalation != false',
        `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`,
      );
}

/** From 1.25 some checks do not apply to Windows pods. */
export const exceptWindows =
  (check: (pod: PodView) => CheckResult) =>
  (pod: PodView): CheckResult =>
    isWindows(pod.spec) ? ALLOWED : check(pod);

export function runAsNonRoot({ spec }: PodView): CheckResult {
  const setters: string[] = [];
  const podValue = securityContext(spec).runAsNonRoot;
  if (podValue === false) setters.push('pod');
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const container of containers(spec)) {
    const value = securityContext(container).runAsNonRoot;
    if (present(value)) {
      if (value === false) explicit.push(containerName(container));
    } else if (podValue !== true) {
      implicit.push(containerName(container));
    }
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0)
    return forbid('runAsNonRoot != true', `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`);
  if (implicit.length > 0)
    return forbid(
      'runAsNonRoot != true',
      `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true`,
    );
  return ALLOWED;
}

export function runAsUser({ spec }: PodView): CheckResult {
  const isRoot = (owner: Fields) => securityContext(owner).runAsUser === 0;
  const bad = containers(spec).filter(isRoot).map(containerName);
  const setters = [...(isRoot(spec) ? ['pod'] : []), ...(bad.length > 0 ? [containersPhrase(bad)] : [])];
  return setters.length === 0 ? ALLOWED : forbid('runAsUser=0', `${setters.join(' and ')} must not set runAsUser=0`);
}

export function seccompProfileRestricted1_19({ spec }: PodView): CheckResult {
  const { setters, values, unsetContainers } = seccompSetters(spec);
  if (setters.length > 0)
    return forbid(
      'seccompProfile',
      `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sorted(values))}`,
    );
  if (unsetContainers.length > 0) {
    return forbid(
      'seccompProfile',
      `pod or ${containersPhrase(unsetContainers)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    );
  }
  return ALLOWED;
}

export function capabilitiesRestricted1_22({ spec }: PodView): CheckResult {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbiddenCapabilities = new Set<string>();
  for (const container of containers(spec)) {
    const capabilities = securityContext(container).capabilities;
    if (!present(capabilities)) {
      missingDropAll.push(containerName(container));
      continue;
    }
    if (!strings(record(capabilities).drop).includes('ALL')) missingDropAll.push(containerName(container));
    const forbidden = strings(record(capabilities).add).filter((capability) => capability !== 'NET_BIND_SERVICE');
    if (forbidden.length > 0) addingForbidden.push(containerName(container));
    for (const capability of forbidden) forbiddenCapabilities.add(capability);
  }
  const details = [
    ...(missingDropAll.length > 0
      ? [`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`]
      : []),
    ...(addingForbidden.length > 0
      ? [
          `${containersPhrase(addingForbidden)} must not include ${joinQuote(sorted(forbiddenCapabilities))} in securityContext.capabilities.add`,
        ]
      : []),
  ];
  return details.length === 0 ? ALLOWED : forbid('unrestricted capabilities', details.join('; '));
}
