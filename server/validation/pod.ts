/**
 * Pod spec and pod template validation: the subset of the reference's ValidatePodSpec that
 * catches the common mistakes (missing containers, names, images, bad ports and enum values),
 * with the reference's paths and texts.
 */
import type { FieldError } from '../status/field-error';
import type { FeatureEnabled } from '../registry/types';
import { usesEnvFiles, usesSELinuxChangePolicy } from '../registry/kinds/pod-gated-fields';
import { MIRROR_POD_ANNOTATION } from '../registry/kinds/mirror-pod';
import { appArmorAnnotationErrors, appArmorFieldMismatches, type AppArmorPodSpec } from './apparmor-annotations';
import { seccompAnnotationErrors, seccompFieldMismatches, type SeccompPodSpec } from './seccomp-annotations';
import { podTolerationAnnotationErrors } from './toleration-json';
import { validatePodOS, type PodOSSpec } from './pod-os';
import { stopSignalErrors } from './stop-signals';
import { idErrors } from './linux-users';
import {
  procMountErrors,
  sharesHostUsers,
  usesVolumeDevicesInUserNamespace,
  validateHostUsers,
  type UserNamespacePodSpec,
} from './pod-user-namespace';
import { setsHostNamespacedSysctl, validateSysctls, type SysctlPodSpec } from './pod-sysctls';
import {
  validateHostProcessPod,
  validateWindowsOptions,
  type HostProcessPodSpec,
  type WindowsOptions,
} from './windows-options';
import { privilegeEscalationErrors, type PrivilegeSecurityContext } from './privilege-escalation';
import {
  duplicate,
  fieldNotFound,
  FieldPath,
  forbidden,
  invalid,
  notSupported,
  required,
} from '../status/field-errors';
import { pathNoBackstepsErrors } from './volume-file-paths';
import { internalDiff } from './internal-json';
import { semanticEqual } from './semantic-equality';
import { clusterPolicy } from './cluster-policy';
import { validateVolumeDevices, validateVolumeMounts, type VolumeDevice, type VolumeMount } from './container-mounts';
import { validateVolumes, type Volume } from './volume-sources';
import { ephemeralContainerErrors } from './ephemeral-containers';
import { tokenWithoutServiceAccountErrors, writesTokenOutsideVolume } from './projected-sources';
import { isValidIPForLegacyField } from './ip';
import { objectFieldSelectorErrors, resourceFieldSelectorErrors } from './downward-api';
import {
  inclusiveRangeError,
  isConfigMapKey,
  isRelaxedEnvVarName,
  nameIsDNSSubdomain,
  isDNS1123Label,
  isDNS1123Subdomain,
  isDNS1123SubdomainWithUnderscore,
  isValidPortName,
  isValidPortNum,
} from './names';
import { validateAnnotations, validateEnum, validateLabels, validateNonnegative } from './object-meta';
import {
  maskGatedSchedulingChanges,
  validateOnlyAddedTolerations,
  validateOnlyDeletedSchedulingGates,
  type GatedSchedulingSpec,
} from './pod-scheduling-update';
import { affinityOptionsOf, validateAffinity, type Affinity, type AffinityOptions } from './pod-affinity';
import {
  validateReadinessGates,
  validateSchedulingGates,
  validateTolerations,
  hasInvalidTopologySpreadSelector,
  validateTopologySpreadConstraints,
  violatesSpreadMatchLabelKeysRule,
  type SpreadMatchLabelKeysRule,
} from './pod-scheduling';
import { validateContainerResourceName, validatePodResourceName } from './resource-names';
import { usesIndivisibleHugePages, validateResourceRequirements } from './resource-requirements';
import { GO_SPACE } from './go-space';
import { validatePullPolicy } from './pull-policy';
import {
  initContainerResizePolicyErrors,
  sidecarHasResizePolicy,
  validateResizePolicy,
  type ContainerResizePolicy,
} from './resize-policy';
import { podResourceConsistencyErrors } from './pod-level-resources';
import {
  podResourceClaimErrors,
  podResourceClaimNames,
  resourceClaimReferenceErrors,
  type PodResourceClaim,
  type ResourceClaimReference,
} from './pod-resource-claims';

type Json = Record<string, unknown>;

interface ContainerPort {
  name?: string;
  containerPort?: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
}

type PortNumOrName = number | string;

/** A probe's or lifecycle hook's handler: exactly one of these members. */
interface Handler {
  exec?: { command?: string[] };
  httpGet?: { port?: PortNumOrName };
  tcpSocket?: { port?: PortNumOrName };
  grpc?: { port?: number };
  sleep?: { seconds?: number } | null;
}

interface Probe extends Handler {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

/** A container's hooks and stop signal. */
interface Lifecycle {
  postStart?: Handler | null;
  preStop?: Handler | null;
  stopSignal?: unknown;
}

type PodOS = NonNullable<PodOSSpec['os']>;

interface SecurityProfile {
  type?: string;
  localhostProfile?: string;
}

interface SecurityContext extends PrivilegeSecurityContext {
  seccompProfile?: SecurityProfile;
  appArmorProfile?: SecurityProfile;
  privileged?: boolean;
  runAsUser?: unknown;
  runAsGroup?: unknown;
  procMount?: unknown;
  windowsOptions?: WindowsOptions;
}

interface ResourceRequirements {
  limits?: Record<string, unknown>;
  requests?: Record<string, unknown>;
  claims?: ResourceClaimReference[] | null;
}

interface EnvVar {
  name?: string;
  value?: string;
  valueFrom?: Record<string, unknown> | null;
}

interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name?: string } | null;
  secretRef?: { name?: string } | null;
}

interface Container {
  name?: string;
  image?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  volumeMounts?: VolumeMount[];
  volumeDevices?: VolumeDevice[];
  imagePullPolicy?: string;
  terminationMessagePolicy?: string;
  resources?: ResourceRequirements;
  resizePolicy?: ContainerResizePolicy[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: Lifecycle | null;
  securityContext?: SecurityContext;
}

export interface PodSpecShape {
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  restartPolicy?: string;
  dnsPolicy?: string;
  nodeSelector?: Record<string, string> | null;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  affinity?: Affinity | null;
  resourceClaims?: PodResourceClaim[] | null;
  [field: string]: unknown;
}

export interface PodTemplateShape {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: PodSpecShape;
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
/** In the reference's order, which its message keeps. */
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
/** In the reference's order, which its message keeps (unsorted, unlike most). */
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
// In the reference's order, which its message keeps (not sorted).
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];
const HANDLER_TYPES = ['exec', 'httpGet', 'tcpSocket', 'grpc', 'sleep'] as const;
const MAX_DNS_NAMESERVERS = 3;
const MAX_DNS_SEARCH_PATHS = 32;
const MAX_DNS_SEARCH_LIST_CHARS = 2048;

function portNumOrNameErrors(port: PortNumOrName | undefined, path: FieldPath): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((message) => invalid(path, port, message));
  return isValidPortNum(port ?? 0).map((message) => invalid(path, port ?? 0, message));
}

/**
 * A hook's pause: no longer than the pod's grace period (`gracePeriod`, absent when the pod's own
 * is missing, which is reported on its own), and never negative.
 */
function sleepErrors(sleep: Handler['sleep'], gracePeriod: number | undefined, path: FieldPath): FieldError[] {
  const seconds = sleep?.seconds ?? 0;
  if (gracePeriod === undefined || (seconds >= 0 && seconds <= gracePeriod)) return [];
  return [invalid(path, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`)];
}

/**
 * Exactly one handler, judged by its kind; the ones after the first are refused by name. A
 * lifecycle hook's may pause, for at most the pod's `gracePeriod`.
 */
function validateHandler(handler: Handler, path: FieldPath, gracePeriod?: number): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const type of HANDLER_TYPES) {
    if (handler[type] === undefined) continue;
    if (count++ > 0) {
      errors.push(forbidden(path.child(type), 'may not specify more than 1 handler type'));
      continue;
    }
    const at = path.child(type);
    if (type === 'exec' && (handler.exec?.command ?? []).length === 0) errors.push(required(at.child('command')));
    if (type === 'httpGet' || type === 'tcpSocket')
      errors.push(...portNumOrNameErrors(handler[type]?.port, at.child('port')));
    if (type === 'grpc') errors.push(...portNumOrNameErrors(handler.grpc?.port ?? 0, at.child('port')));
    if (type === 'sleep') errors.push(...sleepErrors(handler.sleep, gracePeriod, at));
  }
  if (count === 0) errors.push(required(path, 'must specify a handler type'));
  return errors;
}

/** A probe, and what its kind adds: a liveness or startup probe succeeds once, a readiness probe has no grace period. */
function validateProbe(
  probe: Probe | undefined,
  kind: 'livenessProbe' | 'readinessProbe' | 'startupProbe',
  path: FieldPath,
): FieldError[] {
  if (probe === undefined) return [];
  const errors = [...validateProbeCommon(probe, path)];
  if (
    kind === 'readinessProbe' &&
    probe.terminationGracePeriodSeconds !== undefined &&
    probe.terminationGracePeriodSeconds !== null
  )
    errors.push(
      invalid(
        path.child('terminationGracePeriodSeconds'),
        probe.terminationGracePeriodSeconds,
        'must not be set for readinessProbes',
      ),
    );
  if (kind !== 'readinessProbe' && probe.successThreshold !== 1)
    errors.push(invalid(path.child('successThreshold'), probe.successThreshold ?? 0, 'must be 1'));
  return errors;
}

function validateProbeCommon(probe: Probe, path: FieldPath): FieldError[] {
  const errors = validateHandler(probe, path);
  for (const member of [
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'successThreshold',
    'failureThreshold',
  ] as const) {
    errors.push(...validateNonnegative(probe[member], path.child(member)));
  }
  if (probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds <= 0) {
    errors.push(
      invalid(
        path.child('terminationGracePeriodSeconds'),
        probe.terminationGracePeriodSeconds,
        'must be greater than 0',
      ),
    );
  }
  return errors;
}

/** A seccomp or AppArmor profile: a known type, and a localhost profile exactly when the type is Localhost. */
function validateProfile(
  profile: SecurityProfile | undefined,
  kind: 'seccomp' | 'AppArmor',
  path: FieldPath,
): FieldError[] {
  if (profile === undefined) return [];
  const errors: FieldError[] = [];
  const type = profile.type ?? '';
  const member = kind === 'seccomp' ? 'seccompProfile' : 'appArmorProfile';
  if (type === '') errors.push(required(path.child('type'), `type is required when ${member} is set`));
  else if (!PROFILE_TYPES.includes(type)) errors.push(notSupported(path.child('type'), type, PROFILE_TYPES));
  if (type === 'Localhost' && !profile.localhostProfile) {
    errors.push(required(path.child('localhostProfile'), `must be set when ${kind} type is Localhost`));
  } else if (type !== 'Localhost' && type !== '' && profile.localhostProfile !== undefined) {
    errors.push(
      invalid(
        path.child('localhostProfile'),
        profile.localhostProfile,
        `can only be set when ${kind} type is Localhost`,
      ),
    );
  }
  return errors;
}

/**
 * What a pod's and a container's security contexts share, in the reference's order: the seccomp
 * profile, then (a container's only) the privileges it may not gain, then the Windows options
 * and the AppArmor profile.
 */
function validateProfilesAndWindowsOptions(
  context: SecurityContext | undefined,
  path: FieldPath,
  role: 'pod' | 'container',
): FieldError[] {
  return [
    ...validateProfile(context?.seccompProfile, 'seccomp', path.child('seccompProfile')),
    ...(role === 'container' ? privilegeEscalationErrors(context, path) : []),
    ...validateWindowsOptions(context?.windowsOptions, path.child('windowsOptions')),
    ...validateProfile(context?.appArmorProfile, 'AppArmor', path.child('appArmorProfile')),
  ];
}

function validateHostAliases(
  aliases: readonly { ip?: string; hostnames?: string[] }[] | undefined,
  path: FieldPath,
  options: PodValidationOptions,
): FieldError[] {
  const errors: FieldError[] = [];
  (aliases ?? []).forEach((alias, i) => {
    const at = path.index(i);
    for (const message of isValidIPForLegacyField(alias.ip ?? '', options.strictIPs))
      errors.push(invalid(at.child('ip'), alias.ip ?? '', message));
    (alias.hostnames ?? []).forEach((hostname, j) => {
      for (const message of isDNS1123Subdomain(hostname))
        errors.push(invalid(at.child('hostnames').index(j), hostname, message));
    });
  });
  return errors;
}

interface DNSConfig {
  nameservers?: string[];
  searches?: string[];
  options?: { name?: string }[];
}

function validateDNSConfig(
  config: DNSConfig | undefined,
  dnsPolicy: string | undefined,
  path: FieldPath,
  options: PodValidationOptions,
): FieldError[] {
  if (dnsPolicy === 'None') {
    if (config === undefined) return [required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if ((config.nameservers ?? []).length === 0)
      return [required(path.child('nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (config === undefined) return [];
  const errors: FieldError[] = [];
  const nameservers = config.nameservers ?? [];
  const searches = config.searches ?? [];
  if (nameservers.length > MAX_DNS_NAMESERVERS)
    errors.push(
      invalid(path.child('nameservers'), nameservers, `must not have more than ${MAX_DNS_NAMESERVERS} nameservers`),
    );
  nameservers.forEach((nameserver, i) => {
    for (const message of isValidIPForLegacyField(nameserver, options.strictIPs))
      errors.push(invalid(path.child('nameservers').index(i), nameserver, message));
  });
  if (searches.length > MAX_DNS_SEARCH_PATHS)
    errors.push(
      invalid(path.child('searches'), searches, `must not have more than ${MAX_DNS_SEARCH_PATHS} search paths`),
    );
  if (searches.join(' ').length > MAX_DNS_SEARCH_LIST_CHARS) {
    errors.push(
      invalid(
        path.child('searches'),
        searches,
        `must not have more than ${MAX_DNS_SEARCH_LIST_CHARS} characters (including spaces) in the search list`,
      ),
    );
  }
  searches.forEach((search, i) => {
    if (search === '.') return;
    const trimmed = search.endsWith('.') ? search.slice(0, -1) : search;
    for (const message of isDNS1123SubdomainWithUnderscore(trimmed))
      errors.push(invalid(path.child('searches').index(i), trimmed, message));
  });
  (config.options ?? []).forEach((option, i) => {
    if (!option.name) errors.push(required(path.child('options').index(i), 'must not be empty'));
  });
  return errors;
}

function validatePorts(ports: readonly ContainerPort[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = path.index(i);
    if (port.name) {
      const messages = isValidPortName(port.name);
      for (const message of messages) errors.push(invalid(at.child('name'), port.name, message));
      if (messages.length === 0 && names.has(port.name)) errors.push(duplicate(at.child('name'), port.name));
      names.add(port.name);
    }
    if (!port.containerPort) errors.push(required(at.child('containerPort')));
    else
      for (const message of isValidPortNum(port.containerPort))
        errors.push(invalid(at.child('containerPort'), port.containerPort, message));
    if (port.hostPort)
      for (const message of isValidPortNum(port.hostPort))
        errors.push(invalid(at.child('hostPort'), port.hostPort, message));
    errors.push(...validateEnum(port.protocol, PROTOCOLS, at.child('protocol'), true));
  });
  return errors;
}

/** A container's hooks (each exactly one handler) and its stop signal, which only the pod's declared OS makes sense of. */
function validateLifecycle(lifecycle: Lifecycle, { os, gracePeriod }: ContainersPod, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const hook of ['postStart', 'preStop'] as const)
    if (lifecycle[hook] !== undefined && lifecycle[hook] !== null)
      errors.push(...validateHandler(lifecycle[hook], path.child(hook), gracePeriod));
  if (lifecycle.stopSignal !== undefined && lifecycle.stopSignal !== null)
    errors.push(...stopSignalErrors(lifecycle.stopSignal, os, path.child('stopSignal')));
  return errors;
}

/**
 * A container's lifecycle, then its probes. An init container takes neither (a restartable one
 * does, as a sidecar): each it sets is refused by name.
 */
function lifecycleAndProbeErrors(
  container: Container & { restartPolicy?: string },
  role: 'regular' | 'init',
  pod: ContainersPod,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const members = ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const;
  for (const member of members) {
    const value = container[member];
    if (value === undefined || value === null) continue;
    if (role === 'init' && container.restartPolicy !== 'Always')
      errors.push(forbidden(path.child(member), 'may not be set for init containers without restartPolicy=Always'));
    else if (member === 'lifecycle') errors.push(...validateLifecycle(value as Lifecycle, pod, path.child(member)));
    else errors.push(...validateProbe(value as Probe, member, path.child(member)));
  }
  return errors;
}

type ContainerRole = 'regular' | 'init' | 'ephemeral';

/** What a pod spec's rules depend on beyond the spec, as the reference's PodValidationOptions (the part capstan models). */
export interface PodValidationOptions extends AffinityOptions {
  /** Reading a variable from a file is known: EnvFiles is on, or the stored spec already does it. */
  readonly allowEnvFiles: boolean;
  /** Only the `Recursive` SELinux change policy: SELinuxMount is off and the stored spec sets none. */
  readonly onlyRecursiveSELinuxChangePolicy: boolean;
  /** Any pod-deletion-cost annotation: PodDeletionCost is off, or the stored one is already invalid. */
  readonly allowInvalidPodDeletionCost: boolean;
  /** StrictIPCIDRValidation: host aliases and nameservers may not have leading zeros or IPv4-mapped IPv6 addresses. */
  readonly strictIPs: boolean;
  /** The spread constraints' label selectors are checked: the stored spec has no invalid one. */
  readonly checkTopologySpreadSelectors: boolean;
  /** How the spread constraints' matchLabelKeys are checked. */
  readonly spreadMatchLabelKeysRule: SpreadMatchLabelKeysRule;
  /** A projected token may be written outside its volume: the stored spec already writes one there. */
  readonly allowNonLocalProjectedTokenPath: boolean;
  /** Sysctls of a namespace shared with the host: the stored spec already sets one. */
  readonly allowHostNamespacedSysctls: boolean;
  /** Volume devices in a pod with its own user namespace: the stored spec already has some. */
  readonly allowVolumeDevicesInUserNamespace: boolean;
  /**
   * Pod-level resources are judged: PodLevelResources is on. Off, the ones a stored spec keeps
   * (new ones are dropped) go unjudged, whatever they are.
   */
  readonly judgePodLevelResources: boolean;
  /** Huge pages not in whole pages: the stored spec already has some, as older servers let in. */
  readonly allowIndivisibleHugePages: boolean;
  /** Init containers' resize policies: InPlacePodVerticalScaling is on, or a stored sidecar has one. */
  readonly allowInitContainerResizePolicy: boolean;
}

/**
 * The options for a pod or pod template written over `old` (the stored one, absent on create),
 * as GetValidationOptionsFromPodSpecAndMeta.
 */
export function podValidationOptions(
  featureEnabled: FeatureEnabled,
  old: PodTemplateShape | undefined,
): PodValidationOptions {
  return {
    allowEnvFiles: featureEnabled('EnvFiles') || usesEnvFiles(old?.spec),
    onlyRecursiveSELinuxChangePolicy: !featureEnabled('SELinuxMount') && !usesSELinuxChangePolicy(old?.spec),
    allowInvalidPodDeletionCost:
      !featureEnabled('PodDeletionCost') ||
      (old !== undefined && !isValidDeletionCost(old.metadata?.annotations?.[POD_DELETION_COST])),
    strictIPs: featureEnabled('StrictIPCIDRValidation'),
    checkTopologySpreadSelectors: !hasInvalidTopologySpreadSelector(old?.spec?.topologySpreadConstraints),
    spreadMatchLabelKeysRule: spreadMatchLabelKeysRule(featureEnabled, old?.spec?.topologySpreadConstraints),
    allowNonLocalProjectedTokenPath: writesTokenOutsideVolume(old?.spec?.volumes ?? []),
    allowHostNamespacedSysctls: setsHostNamespacedSysctl(old?.spec as SysctlPodSpec | undefined),
    allowVolumeDevicesInUserNamespace: usesVolumeDevicesInUserNamespace(old?.spec as UserNamespacePodSpec | undefined),
    judgePodLevelResources: featureEnabled('PodLevelResources'),
    allowIndivisibleHugePages: usesIndivisibleHugePages(old?.spec as Record<string, unknown> | undefined),
    allowInitContainerResizePolicy: featureEnabled('InPlacePodVerticalScaling') || sidecarHasResizePolicy(old?.spec),
    ...affinityOptionsOf(old?.spec?.affinity),
  };
}

/**
 * The merged rule where the selector merge is on, the legacy one where it is off, each unless the
 * stored spec breaks it: then the other, so that updates of a pod made under the other gate
 * setting go through (the reference's OldPodViolates*MatchLabelKeysValidation).
 */
function spreadMatchLabelKeysRule(featureEnabled: FeatureEnabled, stored: unknown): SpreadMatchLabelKeysRule {
  if (!featureEnabled('MatchLabelKeysInPodTopologySpread')) return 'legacy';
  const preferred = featureEnabled('MatchLabelKeysInPodTopologySpreadSelectorMerge') ? 'merged' : 'legacy';
  if (!violatesSpreadMatchLabelKeysRule(stored, preferred)) return preferred;
  return preferred === 'merged' ? 'legacy' : 'merged';
}

/** The cost, to a ReplicaSet scaling down, of deleting this pod rather than another. */
const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A 32-bit decimal integer without a plus sign or leading zeros (absent counts as valid). */
function isValidDeletionCost(value: string | undefined): boolean {
  if (value === undefined) return true;
  if (!/^(-\d+|0|[1-9]\d*)$/.test(value)) return false;
  const cost = Number(value);
  return cost >= INT32_MIN && cost <= INT32_MAX;
}

/** The pod-specific annotation rules the reference applies to pods and pod templates alike. */
export function validatePodAnnotations(
  annotations: Record<string, string> | undefined,
  spec: PodSpecShape | undefined,
  path: FieldPath,
  options: PodValidationOptions,
): FieldError[] {
  const errors: FieldError[] = [];
  const mirror = annotations?.[MIRROR_POD_ANNOTATION];
  if (mirror !== undefined && !spec?.nodeName)
    errors.push(
      invalid(path.key(MIRROR_POD_ANNOTATION), mirror, 'must set spec.nodeName if mirror pod annotation is set'),
    );
  errors.push(...podTolerationAnnotationErrors(annotations, path));
  const cost = annotations?.[POD_DELETION_COST];
  if (!options.allowInvalidPodDeletionCost && !isValidDeletionCost(cost))
    errors.push(invalid(path.key(POD_DELETION_COST), cost, 'must be a 32bit integer'));
  errors.push(...seccompAnnotationErrors(annotations, path));
  const containerNames = new Set(
    (['initContainers', 'containers', 'ephemeralContainers'] as const).flatMap((list) =>
      ((spec?.[list] as Container[] | undefined) ?? []).map((container) => container.name ?? ''),
    ),
  );
  errors.push(...appArmorAnnotationErrors(annotations, containerNames, path));
  return errors;
}

/**
 * The deprecated seccomp and AppArmor annotations against the profile fields set beside them,
 * which the reference judges on a pod's create and on every write of a template.
 */
export function validateProfileAnnotationsAgainstFields(
  annotations: Record<string, string> | undefined,
  spec: PodSpecShape | undefined,
  specPath: FieldPath,
): FieldError[] {
  return [
    ...seccompFieldMismatches(annotations, spec as SeccompPodSpec | undefined, specPath),
    ...appArmorFieldMismatches(annotations, spec as AppArmorPodSpec | undefined, specPath),
  ];
}

const SELINUX_CHANGE_POLICIES = ['MountOption', 'Recursive'];
const FS_GROUP_CHANGE_POLICIES = ['Always', 'OnRootMismatch'];
const SUPPLEMENTAL_GROUPS_POLICIES = ['Merge', 'Strict'];

/** An optional member that, when set, must be one of `supported`. */
function enumErrors(value: unknown, supported: readonly string[], path: FieldPath): FieldError[] {
  if (value === undefined || value === null || supported.includes(value as string)) return [];
  return [notSupported(path, value, supported)];
}

/**
 * The pod's security context in the order of the reference's validatePodSpecSecurityContext: ids,
 * a process namespace shared within the pod and with the host at once (reported at the internal
 * type's place for it, `securityContext.shareProcessNamespace`), sysctls, policies, profiles and
 * Windows options.
 */
function validatePodSecurityContext(
  spec: PodSpecShape,
  specPath: FieldPath,
  options: PodValidationOptions,
): FieldError[] {
  const context = (spec.securityContext ?? {}) as SecurityContext & Json;
  const path = specPath.child('securityContext');
  const errors: FieldError[] = [
    ...idErrors(context.fsGroup, path.child('fsGroup')),
    ...idErrors(context.runAsUser, path.child('runAsUser')),
    ...idErrors(context.runAsGroup, path.child('runAsGroup')),
  ];
  const groups = Array.isArray(context.supplementalGroups) ? (context.supplementalGroups as unknown[]) : [];
  groups.forEach((group, i) => errors.push(...idErrors(group, path.child('supplementalGroups').index(i))));
  if (spec.shareProcessNamespace === true && spec.hostPID === true)
    errors.push(
      invalid(path.child('shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'),
    );
  errors.push(
    ...validateSysctls(spec as SysctlPodSpec, path.child('sysctls'), {
      allowHostNamespaced: options.allowHostNamespacedSysctls,
    }),
  );
  errors.push(...enumErrors(context.fsGroupChangePolicy, FS_GROUP_CHANGE_POLICIES, path.child('fsGroupChangePolicy')));
  errors.push(...validateProfilesAndWindowsOptions(context, path, 'pod'));
  errors.push(
    ...enumErrors(
      context.supplementalGroupsPolicy,
      SUPPLEMENTAL_GROUPS_POLICIES,
      path.child('supplementalGroupsPolicy'),
    ),
  );
  errors.push(...validateSELinuxChangePolicy(context.seLinuxChangePolicy, path.child('seLinuxChangePolicy'), options));
  return errors;
}

function validateSELinuxChangePolicy(policy: unknown, path: FieldPath, options: PodValidationOptions): FieldError[] {
  if (policy === undefined || policy === null) return [];
  const allowed = options.onlyRecursiveSELinuxChangePolicy ? ['Recursive'] : SELINUX_CHANGE_POLICIES;
  return allowed.includes(policy as string) ? [] : [notSupported(path, policy, allowed)];
}

/** A key of a config map or secret: the object's name and the key's. */
function keySelectorErrors(selector: Json, path: FieldPath): FieldError[] {
  const name = typeof selector.name === 'string' ? selector.name : '';
  const key = typeof selector.key === 'string' ? selector.key : '';
  const errors = nameIsDNSSubdomain(name, false).map((message) => invalid(path.child('name'), name, message));
  if (key === '') errors.push(required(path.child('key')));
  else errors.push(...isConfigMapKey(key).map((message) => invalid(path.child('key'), key, message)));
  return errors;
}

/** A variable read from a file of a volume (EnvFiles): the variable's name in it, the volume, a path not stepping out. */
function fileKeySelectorErrors(selector: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const text = (member: string) => (typeof selector[member] === 'string' ? (selector[member] as string) : '');
  const [key, volumeName, filePath] = [text('key'), text('volumeName'), text('path')];
  if (key === '') errors.push(required(path.child('key')));
  else errors.push(...isRelaxedEnvVarName(key).map((message) => invalid(path.child('key'), key, message)));
  if (volumeName === '') errors.push(required(path.child('volumeName')));
  else
    errors.push(...isDNS1123Label(volumeName).map((message) => invalid(path.child('volumeName'), volumeName, message)));
  if (filePath === '') errors.push(required(path.child('path')));
  else errors.push(...pathNoBackstepsErrors(filePath, path.child('path')));
  return errors;
}

/** The sources of a variable's value in the reference's order, with each one's own checks. */
const ENV_VALUE_SOURCES: readonly { readonly member: string; readonly check: typeof keySelectorErrors }[] = [
  { member: 'fieldRef', check: (source, path) => objectFieldSelectorErrors(source, 'env', path) },
  { member: 'resourceFieldRef', check: (source, path) => resourceFieldSelectorErrors(source, 'env', path) },
  { member: 'configMapKeyRef', check: keySelectorErrors },
  { member: 'secretKeyRef', check: keySelectorErrors },
  { member: 'fileKeyRef', check: fileKeySelectorErrors },
];

/** A variable's `valueFrom`: each source it names checked, then exactly one of them, and then no `value`. */
function validateEnvValueFrom(env: EnvVar, path: FieldPath, options: PodValidationOptions): FieldError[] {
  const valueFrom = env.valueFrom;
  if (valueFrom === undefined || valueFrom === null) return [];
  const errors: FieldError[] = [];
  let sources = 0;
  for (const { member, check } of ENV_VALUE_SOURCES) {
    const source = valueFrom[member];
    if (source === undefined || source === null) continue;
    sources++;
    errors.push(...check(source as Json, path.child(member)));
  }
  if (sources === 0) {
    const known = options.allowEnvFiles
      ? '`fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`'
      : '`fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`';
    errors.push(invalid(path, '', `must specify one of: ${known}`));
  } else if (env.value) errors.push(invalid(path, '', 'may not be specified when `value` is not empty'));
  else if (sources > 1) errors.push(invalid(path, '', 'may not have more than one field specified at a time'));
  return errors;
}

/**
 * Whole config maps and secrets as variables: a prefix that makes names, and exactly one object,
 * named like a generated name may be (a trailing '-' taken). The count is reported at the list.
 */
function validateEnvFrom(sources: readonly EnvFromSource[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  sources.forEach((source, i) => {
    const at = path.index(i);
    if (source.prefix)
      for (const message of isRelaxedEnvVarName(source.prefix))
        errors.push(invalid(at.child('prefix'), source.prefix, message));
    let kinds = 0;
    for (const member of ['configMapRef', 'secretRef'] as const) {
      const ref = source[member];
      if (ref === undefined || ref === null) continue;
      kinds++;
      const name = ref.name ?? '';
      if (name === '') errors.push(required(at.child(member, 'name')));
      else
        for (const message of nameIsDNSSubdomain(name, true))
          errors.push(invalid(at.child(member, 'name'), name, message));
    }
    if (kinds === 0) errors.push(invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (kinds > 1) errors.push(invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errors;
}

/** Go's unicode.IsSpace at either end. */
const GO_SPACE_AT_ENDS = new RegExp(`^${GO_SPACE}|${GO_SPACE}$`);

/** A Pod's image (not a template's, which keep an older, looser rule) has no surrounding whitespace. */
function imageWhitespaceErrors(container: Container, path: FieldPath): FieldError[] {
  const image = container.image ?? '';
  return GO_SPACE_AT_ENDS.test(image)
    ? [invalid(path.child('image'), image, 'must not have leading or trailing whitespace')]
    : [];
}

/**
 * One container's own fields, in the order of the reference's validateContainerCommon: name,
 * image, termination message policy, ports, env, envFrom, mounts, pull policy, resources, resize
 * policies, security context. What depends on the container's role (a duplicate name, probes)
 * follows it.
 */
function validateContainerCommon(
  container: Container,
  at: FieldPath,
  { volumes, options, hostUsers, podClaimNames, restartPolicy }: ContainersPod,
): FieldError[] {
  const errors: FieldError[] = [];
  if (!container.name) errors.push(required(at.child('name')));
  else
    for (const message of isDNS1123Label(container.name))
      errors.push(invalid(at.child('name'), container.name, message));
  if (!container.image) errors.push(required(at.child('image')));
  const policy = container.terminationMessagePolicy;
  if (!policy) errors.push(required(at.child('terminationMessagePolicy')));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(policy))
    errors.push(notSupported(at.child('terminationMessagePolicy'), policy, TERMINATION_MESSAGE_POLICIES));
  errors.push(...validatePorts(container.ports ?? [], at.child('ports')));
  (container.env ?? []).forEach((env, j) => {
    const envAt = at.child('env').index(j);
    if (!env.name) errors.push(required(envAt.child('name')));
    else
      for (const message of isRelaxedEnvVarName(env.name)) errors.push(invalid(envAt.child('name'), env.name, message));
    errors.push(...validateEnvValueFrom(env, envAt.child('valueFrom'), options));
  });
  errors.push(...validateEnvFrom(container.envFrom ?? [], at.child('envFrom')));
  const mounts = container.volumeMounts ?? [];
  const devices = container.volumeDevices ?? [];
  const privileged = container.securityContext?.privileged === true;
  errors.push(...validateVolumeMounts(mounts, devices, volumes, privileged, at.child('volumeMounts')));
  errors.push(...validateVolumeDevices(devices, mounts, volumes, at.child('volumeDevices')));
  errors.push(...validatePullPolicy(container.imagePullPolicy, at.child('imagePullPolicy')));
  errors.push(
    ...validateResourceRequirements(container.resources, at.child('resources'), {
      checkName: validateContainerResourceName,
      allowIndivisibleHugePages: options.allowIndivisibleHugePages,
    }),
  );
  errors.push(
    ...resourceClaimReferenceErrors(container.resources?.claims, podClaimNames, at.child('resources', 'claims')),
  );
  errors.push(...validateResizePolicy(container.resizePolicy ?? [], at.child('resizePolicy'), restartPolicy));
  if (container.securityContext?.privileged === true && !clusterPolicy().allowPrivileged) {
    errors.push(forbidden(at.child('securityContext', 'privileged'), 'disallowed by cluster policy'));
  }
  errors.push(...idErrors(container.securityContext?.runAsUser, at.child('securityContext', 'runAsUser')));
  errors.push(...idErrors(container.securityContext?.runAsGroup, at.child('securityContext', 'runAsGroup')));
  errors.push(
    ...procMountErrors(container.securityContext?.procMount, hostUsers, at.child('securityContext', 'procMount')),
  );
  errors.push(
    ...validateProfilesAndWindowsOptions(container.securityContext, at.child('securityContext'), 'container'),
  );
  return errors;
}

/**
 * What a pod gives its containers' rules: the volumes they may mount, the names of the resource
 * claims they may ask for, the options, the declared OS, whether its users are the host's, and
 * its grace period.
 */
interface ContainersPod {
  readonly volumes: ReadonlyMap<string, Volume>;
  readonly podClaimNames: ReadonlySet<string>;
  readonly options: PodValidationOptions;
  readonly os: PodOS | undefined;
  readonly hostUsers: boolean;
  /** The pod's terminationGracePeriodSeconds, which a hook may not outlast. */
  readonly gracePeriod: number | undefined;
  /** The pod's restartPolicy, which its containers' resize policies must suit. */
  readonly restartPolicy: string | undefined;
}

/**
 * Containers of one role. `takenNames` holds the names a container of this role may not repeat
 * (for init containers, the regular ones'; for ephemeral ones, both), and gains this role's: all
 * of them, but for init containers only those not empty, as the reference inserts them.
 */
function validateContainers(
  containers: readonly Container[],
  path: FieldPath,
  takenNames: Set<string>,
  pod: ContainersPod,
  role: ContainerRole = 'regular',
): FieldError[] {
  const errors: FieldError[] = [];
  // An ephemeral container targets one of the others, whose names are all taken before it.
  const targets = new Set(takenNames);
  containers.forEach((container, i) => {
    const at = path.index(i);
    errors.push(...validateContainerCommon(container, at, pod));
    if (role === 'ephemeral') errors.push(...imageWhitespaceErrors(container, at));
    const name = container.name ?? '';
    if (takenNames.has(name)) errors.push(duplicate(at.child('name'), name));
    else if (role !== 'init' || name !== '') takenNames.add(name);
    // Init containers run one at a time: each is checked alone, as a list of one (so at index 0).
    if (role === 'init') errors.push(...hostPortConflicts([container], path));
    if (role === 'ephemeral') errors.push(...ephemeralContainerErrors(container as Json, at, targets));
    else errors.push(...lifecycleAndProbeErrors(container, role, pod, at));
    if (role === 'init')
      errors.push(
        ...initContainerResizePolicyErrors(
          container.resizePolicy,
          at.child('resizePolicy'),
          pod.options.allowInitContainerResizePolicy,
        ),
      );
  });
  if (role === 'regular') errors.push(...hostPortConflicts(containers, path));
  return errors;
}

/** A host port (with its protocol and address) that two ports of the containers take, as the reference's AccumulateUniqueHostPorts. */
function hostPortConflicts(containers: readonly Container[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const taken = new Set<string>();
  containers.forEach((container, i) => {
    (container.ports ?? []).forEach((port, j) => {
      if (!port.hostPort) return;
      const key = `${port.protocol ?? ''}/${port.hostIP ?? ''}/${port.hostPort}`;
      if (taken.has(key)) errors.push(duplicate(path.index(i).child('ports').index(j).child('hostPort'), key));
      else taken.add(key);
    });
  });
  return errors;
}

/**
 * Pod-level resources, judged after the containers: a Windows pod may not set them, and is told
 * nothing more of them, since the kubelet there would not apply them; otherwise no claims (even
 * an empty list), names the pod level supports, and amounts that fit the containers'.
 */
function validatePodResources(
  spec: PodSpecShape,
  podClaimNames: ReadonlySet<string>,
  path: FieldPath,
  options: PodValidationOptions,
): FieldError[] {
  const resources = spec.resources as ResourceRequirements | null | undefined;
  if (resources === undefined || resources === null) return [];
  if ((spec as PodOSSpec).os?.name === 'windows') return [forbidden(path, 'may not be set for a windows pod')];
  const errors: FieldError[] = [];
  if (resources.claims !== undefined && resources.claims !== null)
    errors.push(forbidden(path.child('claims'), 'claims may not be set for Resources at pod-level'));
  errors.push(
    ...validateResourceRequirements(resources, path, {
      checkName: validatePodResourceName,
      allowIndivisibleHugePages: options.allowIndivisibleHugePages,
    }),
  );
  errors.push(...resourceClaimReferenceErrors(resources.claims, podClaimNames, path.child('claims')));
  errors.push(...podResourceConsistencyErrors(spec, resources, path));
  return errors;
}

/**
 * On the host's network a container's port is the host's: its hostPort, if any, is its
 * containerPort. A Pod's are defaulted so by then, so a template alone may leave one unset (0),
 * for its pods' defaults to fill. Init containers are not judged, as the reference leaves them.
 */
function hostNetworkPortErrors(spec: PodSpecShape, path: FieldPath, isPod: boolean): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errors: FieldError[] = [];
  (spec.containers ?? []).forEach((container, i) =>
    (container.ports ?? []).forEach((port, j) => {
      const hostPort = port.hostPort ?? 0;
      if ((isPod || hostPort !== 0) && hostPort !== (port.containerPort ?? 0))
        errors.push(
          invalid(
            path.child('containers').index(i).child('ports').index(j).child('hostPort'),
            hostPort,
            'must match `containerPort` when `hostNetwork` is true',
          ),
        );
    }),
  );
  return errors;
}

/** A variable read from a file reads it from an emptyDir of the pod, which the kubelet can write first. */
function fileKeyRefVolumeErrors(spec: PodSpecShape, path: FieldPath): FieldError[] {
  const volumes = new Map((spec.volumes ?? []).map((volume) => [volume.name ?? '', volume]));
  const errors: FieldError[] = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    ((spec[list] as Container[] | undefined) ?? []).forEach((container, i) => {
      (container.env ?? []).forEach((env, j) => {
        const fileKeyRef = env.valueFrom?.fileKeyRef as { volumeName?: string } | null | undefined;
        if (fileKeyRef === undefined || fileKeyRef === null) return;
        const volumeName = fileKeyRef.volumeName ?? '';
        const at = path.child(list).index(i).child('env').index(j).child('valueFrom', 'fileKeyRef', 'volumeName');
        const volume = volumes.get(volumeName);
        if (volume === undefined) errors.push(fieldNotFound(at, volumeName));
        else if (volume.emptyDir === undefined || volume.emptyDir === null)
          errors.push(invalid(at, volumeName, 'referenced volume must be of type emptyDir'));
      });
    });
  }
  return errors;
}

/** What a Pod's spec is judged with beyond a template's. */
export interface PodIdentity {
  /** Names the claims of its ephemeral volumes. */
  readonly name: string;
  /** A mirror pod's, which takes no resource claims. */
  readonly static: boolean;
}

/**
 * Runs on defaulted specs: fields the defaults always fill are required here, as in the reference.
 * `podIdentity`: a Pod's (templates have none).
 */
export function validatePodSpec(
  spec: PodSpecShape | undefined,
  path: FieldPath,
  options: PodValidationOptions,
  podIdentity?: PodIdentity,
): FieldError[] {
  const errors: FieldError[] = [];
  const podSpec = spec ?? {};
  const podName = podIdentity?.name;
  const { mountable, errors: volumeErrors } = validateVolumes(
    podSpec.volumes ?? [],
    { podName, allowNonLocalTokenPath: options.allowNonLocalProjectedTokenPath },
    path.child('volumes'),
  );
  errors.push(...volumeErrors);
  errors.push(
    ...podResourceClaimErrors(
      podSpec.resourceClaims,
      { staticPod: podIdentity?.static === true },
      path.child('resourceClaims'),
    ),
  );
  const pod: ContainersPod = {
    volumes: mountable,
    podClaimNames: podResourceClaimNames(podSpec.resourceClaims),
    options,
    os: (podSpec as PodOSSpec).os ?? undefined,
    hostUsers: sharesHostUsers(podSpec as UserNamespacePodSpec),
    gracePeriod: podSpec.terminationGracePeriodSeconds,
    restartPolicy: podSpec.restartPolicy,
  };
  const regularAndInitNames = new Set<string>();
  if (!podSpec.containers || podSpec.containers.length === 0) errors.push(required(path.child('containers')));
  else errors.push(...validateContainers(podSpec.containers, path.child('containers'), regularAndInitNames, pod));
  const initContainers = podSpec.initContainers ?? [];
  const nonEphemeralNames = new Set([
    ...regularAndInitNames,
    ...initContainers.map((container) => container.name ?? ''),
  ]);
  errors.push(...validateContainers(initContainers, path.child('initContainers'), regularAndInitNames, pod, 'init'));
  errors.push(
    ...validateContainers(
      (podSpec.ephemeralContainers as Container[] | undefined) ?? [],
      path.child('ephemeralContainers'),
      nonEphemeralNames,
      pod,
      'ephemeral',
    ),
  );
  if (options.judgePodLevelResources)
    errors.push(...validatePodResources(podSpec, pod.podClaimNames, path.child('resources'), options));
  errors.push(...hostNetworkPortErrors(podSpec, path, podName !== undefined));
  const restartPolicy = podSpec.restartPolicy;
  if (!restartPolicy) errors.push(required(path.child('restartPolicy')));
  else if (!RESTART_POLICIES.includes(restartPolicy))
    errors.push(notSupported(path.child('restartPolicy'), restartPolicy, RESTART_POLICIES));
  if (!podSpec.dnsPolicy) errors.push(required(path.child('dnsPolicy')));
  else if (!DNS_POLICIES.includes(podSpec.dnsPolicy))
    errors.push(notSupported(path.child('dnsPolicy'), podSpec.dnsPolicy, DNS_POLICIES));
  errors.push(...validateLabels(podSpec.nodeSelector ?? undefined, path.child('nodeSelector')));
  errors.push(...validatePodSecurityContext(podSpec, path, options));
  errors.push(...validateAffinity(podSpec.affinity, options, path.child('affinity')));
  errors.push(
    ...validateDNSConfig(
      podSpec.dnsConfig as DNSConfig | undefined,
      podSpec.dnsPolicy,
      path.child('dnsConfig'),
      options,
    ),
  );
  errors.push(
    ...validateReadinessGates(
      podSpec.readinessGates as { conditionType?: string }[] | undefined,
      path.child('readinessGates'),
    ),
  );
  errors.push(
    ...validateSchedulingGates(
      podSpec.schedulingGates as { name?: string }[] | undefined,
      path.child('schedulingGates'),
    ),
  );
  errors.push(
    ...validateTopologySpreadConstraints(
      podSpec.topologySpreadConstraints as Parameters<typeof validateTopologySpreadConstraints>[0],
      path.child('topologySpreadConstraints'),
      {
        checkLabelSelectors: options.checkTopologySpreadSelectors,
        matchLabelKeysRule: options.spreadMatchLabelKeysRule,
      },
    ),
  );
  errors.push(...validateHostProcessPod(podSpec as HostProcessPodSpec, path));
  errors.push(
    ...validateHostUsers(podSpec as UserNamespacePodSpec, path, {
      allowVolumeDevices: options.allowVolumeDevicesInUserNamespace,
    }),
  );
  // A negative terminationGracePeriodSeconds is accepted: the reference only warns of it (old
  // clients wrote it), and the kubelet treats it as 1.
  const deadline = podSpec.activeDeadlineSeconds;
  if (typeof deadline === 'number' && (deadline < 1 || deadline > INT32_MAX))
    errors.push(invalid(path.child('activeDeadlineSeconds'), deadline, inclusiveRangeError(1, INT32_MAX)));
  errors.push(
    ...validateTolerations(podSpec.tolerations as Parameters<typeof validateTolerations>[0], path.child('tolerations')),
  );
  errors.push(
    ...validateHostAliases(
      podSpec.hostAliases as { ip?: string; hostnames?: string[] }[] | undefined,
      path.child('hostAliases'),
      options,
    ),
  );
  if (podSpec.overhead !== undefined) {
    errors.push(
      ...validateResourceRequirements({ limits: podSpec.overhead as Record<string, unknown> }, path.child('overhead'), {
        checkName: validateContainerResourceName,
        allowIndivisibleHugePages: options.allowIndivisibleHugePages,
      }),
    );
  }
  errors.push(...validatePodOS(podSpec as PodOSSpec, path));
  errors.push(...fileKeyRefVolumeErrors(podSpec, path));
  return errors;
}

/**
 * What the reference checks of a Pod's spec beyond a template's, after the spec's own rules: a
 * projected token needs a service account, and images have no surrounding whitespace
 * (ephemeral containers' are checked with them).
 */
export function validatePodOnlySpec(spec: PodSpecShape | undefined, path: FieldPath): FieldError[] {
  return [
    ...tokenWithoutServiceAccountErrors(
      spec?.volumes ?? [],
      typeof spec?.serviceAccountName === 'string' ? spec.serviceAccountName : '',
      path.child('volumes'),
    ),
    ...(spec?.containers ?? []).flatMap((container, i) =>
      imageWhitespaceErrors(container, path.child('containers').index(i)),
    ),
    ...(spec?.initContainers ?? []).flatMap((container, i) =>
      imageWhitespaceErrors(container, path.child('initContainers').index(i)),
    ),
  ];
}

export function validatePodTemplateSpec(
  template: PodTemplateShape | undefined,
  path: FieldPath,
  options: PodValidationOptions,
): FieldError[] {
  if (template === undefined) return [required(path)];
  const errors: FieldError[] = [];
  // The reference validates a template's metadata at the template's own path, as if inlined:
  // `spec.template.labels`, `spec.template.annotations`.
  errors.push(...validateLabels(template.metadata?.labels, path.child('labels')));
  errors.push(...validateAnnotations(template.metadata?.annotations, path.child('annotations')));
  errors.push(
    ...validatePodAnnotations(template.metadata?.annotations, template.spec, path.child('annotations'), options),
  );
  errors.push(...validatePodSpec(template.spec, path.child('spec'), options));
  errors.push(
    ...validateProfileAnnotationsAgainstFields(template.metadata?.annotations, template.spec, path.child('spec')),
  );
  if ((template.spec as Json | undefined)?.ephemeralContainers !== undefined) {
    errors.push(
      forbidden(path.child('spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'),
    );
  }
  return errors;
}

const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/**
 * The new spec with the fields a pod update may change set back to the stored ones, as the
 * reference munges it before comparing and diffing: images, the deadline, tolerations (only
 * additions, checked apart) and scheduling gates (only removals). The grace period is not among
 * them: only a negative one may change, and only to 1 (validatePodSpecUpdate).
 */
function mungedPodSpec(next: PodSpecShape | undefined, old: PodSpecShape | undefined): Json {
  const munged: Json = structuredClone(next ?? {});
  const restore = (target: Json, key: string, value: unknown) => {
    if (value === undefined) delete target[key];
    else target[key] = structuredClone(value);
  };
  for (const list of ['containers', 'initContainers'] as const) {
    const containers = munged[list];
    if (!Array.isArray(containers)) continue;
    // The reference rebuilds each list by appending to a nil one: an empty list becomes nil.
    if (containers.length === 0) delete munged[list];
    (containers as Json[]).forEach((container, i) => restore(container, 'image', old?.[list]?.[i]?.image));
  }
  restore(munged, 'activeDeadlineSeconds', old?.activeDeadlineSeconds);
  restore(munged, 'tolerations', old?.tolerations);
  restore(munged, 'schedulingGates', old?.schedulingGates);
  return munged;
}

/**
 * A deadline may be set where there was none, or lowered (to zero at least), never raised or
 * removed. A value out of range or raised ends the update's checks (`stop`), as the reference's
 * ValidatePodUpdate returns there; a removal does not.
 */
function validateDeadlineUpdate(
  next: number | undefined,
  old: number | undefined,
  path: FieldPath,
): { readonly errors: FieldError[]; readonly stop: boolean } {
  if (next !== undefined) {
    if (next < 0 || next > INT32_MAX)
      return { errors: [invalid(path, next, inclusiveRangeError(0, INT32_MAX))], stop: true };
    if (old !== undefined && old < next)
      return { errors: [invalid(path, next, 'must be less than or equal to previous value')], stop: true };
  } else if (old !== undefined) {
    return { errors: [invalid(path, null, 'must not update from a positive integer to nil value')], stop: false };
  }
  return { errors: [], stop: false };
}

export function validatePodSpecUpdate(next: PodSpecShape | undefined, old: PodSpecShape | undefined): FieldError[] {
  // Containers added or removed end the checks; the images of those kept are checked once more.
  const imageErrors: FieldError[] = [];
  for (const list of ['containers', 'initContainers'] as const) {
    const listPath = FieldPath.root('spec', list);
    if ((next?.[list]?.length ?? 0) !== (old?.[list]?.length ?? 0))
      return [...imageErrors, forbidden(listPath, 'pod updates may not add or remove containers')];
    (next?.[list] ?? []).forEach((container, i) => {
      const image = container.image ?? '';
      if (image === '') imageErrors.push(required(listPath.index(i).child('image'), ''));
      if (image.trim() !== image)
        imageErrors.push(
          invalid(listPath.index(i).child('image'), image, 'must not have leading or trailing whitespace'),
        );
    });
  }
  const specPath = FieldPath.root('spec');
  const deadline = validateDeadlineUpdate(
    next?.activeDeadlineSeconds,
    old?.activeDeadlineSeconds,
    specPath.child('activeDeadlineSeconds'),
  );
  if (deadline.stop) return [...imageErrors, ...deadline.errors];
  const nextSpec = (next ?? {}) as GatedSchedulingSpec;
  const oldSpec = (old ?? {}) as GatedSchedulingSpec;
  const errors = [
    ...imageErrors,
    ...deadline.errors,
    ...validateOnlyAddedTolerations(nextSpec.tolerations, oldSpec.tolerations, specPath.child('tolerations')),
    ...validateOnlyDeletedSchedulingGates(
      nextSpec.schedulingGates,
      oldSpec.schedulingGates,
      specPath.child('schedulingGates'),
    ),
  ];
  const munged = mungedPodSpec(next, old);
  // A negative grace period (old clients wrote them) may be set to 1, the value the kubelet used for it.
  const oldGrace = old?.terminationGracePeriodSeconds;
  if (oldGrace !== undefined && oldGrace < 0 && next?.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = oldGrace;
  if ((oldSpec.schedulingGates?.length ?? 0) > 0) errors.push(...maskGatedSchedulingChanges(munged, oldSpec, specPath));
  const stored = old ?? {};
  if (!semanticEqual('core.PodSpec', munged, stored))
    errors.push(forbidden(specPath, `${POD_UPDATE_FORBIDDEN}\n${internalDiff('core.PodSpec', stored, munged)}`));
  return errors;
}
