/**
 * Kind rules of the core group beyond metadata: the checks behind the 422 messages kubectl
 * users meet most (pods, services, config maps, secrets, namespaces, claims, controllers).
 */
import type { KubeObject } from '../../api/objects';
import { goJSONSyntaxError, goTypeOf } from '../../api/go-json-syntax';
import type { FieldError } from '../status/field-error';
import {
  deepEqual,
  duplicate,
  FieldPath,
  forbidden,
  GoValue,
  immutable,
  invalid,
  notSupported,
  required,
  tooLong,
} from '../status/field-errors';
import {
  endpointIPProblems,
  isValidCIDRForLegacyField,
  isValidIPForLegacyField,
  ipFamilyOf,
  sloppyIPFamily,
} from './ip';
import { valueAtPath } from '../json/value';
import { isMirrorPod, MIRROR_POD_ANNOTATION } from '../registry/kinds/mirror-pod';
import { APPARMOR_CONTAINER_ANNOTATION_PREFIX } from './apparmor-annotations';
import {
  podExtendedResourceClaimStatusErrors,
  podResourceClaimStatusErrors,
  type PodExtendedResourceClaimStatus,
  type PodResourceClaimStatus,
} from './pod-resource-claims';
import { validatePodStatusAddresses, validateServiceLoadBalancerStatus } from './status-addresses';
import { containerStatusUserErrors } from './linux-users';
import { validateNodeTaints } from './pod-scheduling';
import { duplicateNodeAddresses, validateNodeResources } from './node-status';
import { validateNodeConfig } from './node-config-source';
import {
  coveredByDeclarative,
  handWrittenShown,
  withDeclarativeValidation,
  type DeclarativeFieldError,
} from './declarative-validation';
import { replicationControllerDeclarativeErrors } from './declarative-rules';
import {
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidPortName,
  isValidPortNum,
} from './names';
import { allocatedResourcesStatusErrors, noAllocatedResourcesStatusErrors } from './allocated-resources-status';
import {
  containerStateTransitionErrors,
  ephemeralContainerStateTransitionErrors,
  initContainerStateTransitionErrors,
} from './container-state-transitions';
import {
  validateEnum,
  validateFinalizerName,
  validateLabels,
  validateLabelSelector,
  validateNonnegative,
} from './object-meta';
import {
  podValidationOptions,
  validatePodAnnotations,
  validatePodOnlySpec,
  validatePodSpec,
  validatePodSpecUpdate,
  validatePodTemplateSpec,
  validateProfileAnnotationsAgainstFields,
  type PodSpecShape,
  type PodTemplateShape,
  type PodValidationOptions,
} from './pod';
import type { WriteContext } from '../registry/types';
import { validatePersistentVolumeClaimSpec, type ClaimSpec, type DataSourceReference } from './claim-spec';

type Json = Record<string, unknown>;

function field<T>(object: KubeObject, name: string): T | undefined {
  return object[name] as T | undefined;
}

function podAnnotationErrors(pod: KubeObject, options: PodValidationOptions): FieldError[] {
  return validatePodAnnotations(
    pod.metadata.annotations,
    field<PodSpecShape>(pod, 'spec'),
    FieldPath.root('metadata', 'annotations'),
    options,
  );
}

/** A Pod's spec: the rules it shares with templates, then its own. */
function validatePodSpecOf(pod: KubeObject, options: PodValidationOptions): FieldError[] {
  const spec = field<PodSpecShape>(pod, 'spec');
  return [
    ...validatePodSpec(spec, FieldPath.root('spec'), options, {
      name: pod.metadata.name ?? '',
      static: isMirrorPod(pod),
    }),
    ...validatePodOnlySpec(spec, FieldPath.root('spec')),
  ];
}

/**
 * Ephemeral containers are only ever added to a running pod, through their subresource; a pod is
 * bound to a node only once nothing holds back its scheduling. Only a create holds the deprecated
 * profile annotations to the fields: a later write keeps both.
 */
export function validatePod(pod: KubeObject, context: WriteContext): FieldError[] {
  const options = podValidationOptions(context.featureEnabled, undefined);
  const spec = field<PodSpecShape>(pod, 'spec');
  const errors = [...podAnnotationErrors(pod, options), ...validatePodSpecOf(pod, options)];
  if ((spec?.ephemeralContainers as unknown[] | undefined)?.length) {
    errors.push(forbidden(FieldPath.root('spec', 'ephemeralContainers'), 'cannot be set on create'));
  }
  if (spec?.nodeName && (spec.schedulingGates as unknown[] | undefined)?.length) {
    errors.push(
      forbidden(FieldPath.root('spec', 'nodeName'), 'cannot be set until all schedulingGates have been cleared'),
    );
  }
  errors.push(...validateProfileAnnotationsAgainstFields(pod.metadata.annotations, spec, FieldPath.root('spec')));
  return errors;
}

/**
 * The pod checked whole, as on create, then against the stored one: the annotation checks run
 * a second time there, so the reference reports each of their errors twice on a main update.
 */
export function validatePodUpdate(pod: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  const options = podValidationOptions(context.featureEnabled, old);
  return [
    ...validatePodAnnotationsAndSpec(pod, old, context),
    ...podAnnotationUpdateErrors(pod, old, options),
    ...validatePodSpecUpdate(field(pod, 'spec'), field(old, 'spec')),
  ];
}

/**
 * The new pod's own annotations and spec, under the options the stored pod allows: what every
 * later write of a pod's spec (an update, a resize) checks before its own rules.
 */
export function validatePodAnnotationsAndSpec(pod: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  const options = podValidationOptions(context.featureEnabled, old);
  return [...podAnnotationErrors(pod, options), ...validatePodSpecOf(pod, options)];
}

/** The users every list of container statuses reports, against the OS the pod declares (Linux when none). */
function containerStatusUsersErrors(pod: KubeObject): FieldError[] {
  const os = field<{ os?: { name?: string } | null }>(pod, 'spec')?.os;
  const osName = os === undefined || os === null ? 'linux' : (os.name ?? '');
  const status = field<Json>(pod, 'status') ?? {};
  return (['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'] as const).flatMap((list) =>
    containerStatusUserErrors(
      status[list] as Parameters<typeof containerStatusUserErrors>[0],
      osName,
      FieldPath.root('status', list),
    ),
  );
}

/** A status write keeps the stored spec, so only its metadata and status are judged. */
export function validatePodStatusUpdate(pod: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  return [
    ...podAnnotationUpdateErrors(pod, old, podValidationOptions(context.featureEnabled, old)),
    ...podConditionErrors(field<PodStatusShape>(pod, 'status')?.conditions),
    ...validateNominatedNodeName(pod, old, context),
    ...validateNonnegativeInteger(
      field<PodStatusShape>(pod, 'status')?.observedGeneration,
      FieldPath.root('status', 'observedGeneration'),
    ),
    ...immutable(
      FieldPath.root('status', 'qosClass'),
      field<PodStatusShape>(pod, 'status')?.qosClass ?? '',
      field<PodStatusShape>(old, 'status')?.qosClass ?? '',
    ),
    ...podContainerStateTransitionErrors(pod, old, context),
    ...podResourceClaimStatusErrors(
      field<{ resourceClaimStatuses?: PodResourceClaimStatus[] }>(pod, 'status')?.resourceClaimStatuses,
      field<PodSpecShape>(pod, 'spec')?.resourceClaims,
      FieldPath.root('status', 'resourceClaimStatuses'),
    ),
    ...podExtendedResourceClaimStatusErrors(
      field<{ extendedResourceClaimStatus?: PodExtendedResourceClaimStatus }>(pod, 'status')
        ?.extendedResourceClaimStatus,
      field<PodSpecShape>(pod, 'spec') ?? {},
      FieldPath.root('status', 'extendedResourceClaimStatus'),
    ),
    ...validatePodStatusAddresses(pod, old, context.featureEnabled('StrictIPCIDRValidation')),
    ...containerStatusUsersErrors(pod),
    ...podAllocatedResourcesStatusErrors(pod),
  ];
}

function podAllocatedResourcesStatusErrors(pod: KubeObject): FieldError[] {
  type Statuses = Parameters<typeof allocatedResourcesStatusErrors>[0];
  type Containers = Parameters<typeof allocatedResourcesStatusErrors>[2];
  const status = field<Record<string, Statuses>>(pod, 'status') ?? {};
  const spec = field<Record<string, Containers>>(pod, 'spec') ?? {};
  const at = (list: string) => FieldPath.root('status', list);
  return [
    ...allocatedResourcesStatusErrors(status.containerStatuses, at('containerStatuses'), spec.containers),
    ...allocatedResourcesStatusErrors(status.initContainerStatuses, at('initContainerStatuses'), spec.initContainers),
    ...noAllocatedResourcesStatusErrors(status.ephemeralContainerStatuses, at('ephemeralContainerStatuses')),
  ];
}

interface PodStatusShape {
  conditions?: { type?: string; observedGeneration?: number }[];
  observedGeneration?: number;
  qosClass?: string;
}

function validateNonnegativeInteger(value: number | undefined, path: FieldPath): FieldError[] {
  return typeof value === 'number' && value < 0 ? [invalid(path, value, 'must be a non-negative integer')] : [];
}

/** The conditions the system sets are known; any other type is a qualified name, under the reference's `Type`. */
const SYSTEM_POD_CONDITIONS: ReadonlySet<string> = new Set(['PodScheduled', 'Ready', 'Initialized']);

function podConditionErrors(conditions: PodStatusShape['conditions']): FieldError[] {
  const path = FieldPath.root('status', 'conditions');
  return (conditions ?? []).flatMap((condition, i) => {
    const at = path.index(i);
    const type = condition.type ?? '';
    return [
      ...validateNonnegativeInteger(condition.observedGeneration, at.child('observedGeneration')),
      ...(SYSTEM_POD_CONDITIONS.has(type)
        ? []
        : isQualifiedName(type).map((message) => invalid(at.child('Type'), type, message))),
    ];
  });
}

/** Statuses are judged against the stored spec's restart policy, as the reference does. */
function podContainerStateTransitionErrors(pod: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  type Statuses = Parameters<typeof containerStateTransitionErrors>[0];
  const lists = (object: KubeObject) =>
    field<Record<string, Statuses>>(object, 'status') ?? ({} as Record<string, Statuses>);
  const [next, before] = [lists(pod), lists(old)];
  const spec = field<Parameters<typeof containerStateTransitionErrors>[3]>(old, 'spec') ?? {};
  const at = (list: string) => FieldPath.root('status', list);
  return [
    ...containerStateTransitionErrors(next.containerStatuses, before.containerStatuses, at('containerStatuses'), spec, {
      containerRestartRules: context.featureEnabled('ContainerRestartRules'),
    }),
    ...initContainerStateTransitionErrors(
      next.initContainerStatuses,
      before.initContainerStatuses,
      at('initContainerStatuses'),
      spec,
    ),
    ...ephemeralContainerStateTransitionErrors(
      next.ephemeralContainerStatuses,
      before.ephemeralContainerStatuses,
      at('ephemeralContainerStatuses'),
    ),
  ];
}

/**
 * Annotations only a create may set: the kubelet makes a mirror pod by creating it with its
 * annotation, and the container AppArmor annotations were copied to the profile fields then, so
 * a later change could not take effect. Their `what` names them in the errors.
 */
const CREATE_ONLY_ANNOTATIONS: readonly { readonly matches: (key: string) => boolean; readonly what: string }[] = [
  { matches: (key) => key.startsWith(APPARMOR_CONTAINER_ANNOTATION_PREFIX), what: 'AppArmor annotations' },
  { matches: (key) => key === MIRROR_POD_ANNOTATION, what: 'mirror pod annotation' },
];

/**
 * No later write, of the pod or of its status, may add, change or remove a create-only
 * annotation; then the annotations' own rules. As in the reference, the stored annotations
 * changed or removed are reported before the ones added (within each, the reference walks a Go
 * map, in no fixed order; here the annotations' own order stands).
 */
function podAnnotationUpdateErrors(pod: KubeObject, old: KubeObject, options: PodValidationOptions): FieldError[] {
  const path = FieldPath.root('metadata', 'annotations');
  const before = old.metadata.annotations ?? {};
  const after = pod.metadata.annotations ?? {};
  const errors: FieldError[] = [];
  const report = (key: string, message: (what: string) => string) => {
    for (const { matches, what } of CREATE_ONLY_ANNOTATIONS)
      if (matches(key)) errors.push(forbidden(path.key(key), message(what)));
  };
  for (const [key, value] of Object.entries(before))
    if (!Object.hasOwn(after, key) || after[key] !== value) report(key, (what) => `may not remove or update ${what}`);
  for (const key of Object.keys(after)) if (!Object.hasOwn(before, key)) report(key, (what) => `may not add ${what}`);
  return [...errors, ...podAnnotationErrors(pod, options)];
}

/**
 * A new nomination names a node; with ClearingNominatedNodeNameAfterBinding, a bound pod takes
 * none (binding cleared it).
 */
function validateNominatedNodeName(pod: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  const textAt = (object: KubeObject, path: string) => {
    const value = valueAtPath(object, path);
    return typeof value === 'string' ? value : '';
  };
  const nominated = textAt(pod, 'status.nominatedNodeName');
  if (nominated === '' || nominated === textAt(old, 'status.nominatedNodeName')) return [];
  const path = FieldPath.root('status', 'nominatedNodeName');
  const errors = isDNS1123Subdomain(nominated).map((message) => invalid(path, nominated, message));
  if (context.featureEnabled('ClearingNominatedNodeNameAfterBinding') && textAt(old, 'spec.nodeName') !== '')
    errors.push(forbidden(path, 'may not be set on pods that are already bound to a node'));
  return errors;
}

export function validatePodTemplate(template: KubeObject, context: WriteContext): FieldError[] {
  return validatePodTemplateWith(template, podValidationOptions(context.featureEnabled, undefined));
}

/** The stored template's fields set the pod options, as the reference's strategy has them. */
export function validatePodTemplateUpdate(template: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  return validatePodTemplateWith(
    template,
    podValidationOptions(context.featureEnabled, field<PodTemplateShape>(old, 'template')),
  );
}

function validatePodTemplateWith(template: KubeObject, options: PodValidationOptions): FieldError[] {
  return validatePodTemplateSpec(field<PodTemplateShape>(template, 'template'), FieldPath.root('template'), options);
}

interface ServicePort {
  name?: string;
  appProtocol?: string | null;
  port?: number;
  protocol?: string;
  targetPort?: number | string;
  nodePort?: number;
}

interface ServiceSpec {
  type?: string;
  trafficDistribution?: string | null;
  ports?: ServicePort[];
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  allocateLoadBalancerNodePorts?: boolean;
  externalIPs?: string[];
  loadBalancerSourceRanges?: string[];
  clusterIP?: string;
  clusterIPs?: string[];
  externalName?: string;
  sessionAffinity?: string;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number | null } | null } | null;
  selector?: Record<string, string>;
  ipFamilies?: string[];
  ipFamilyPolicy?: string | null;
  loadBalancerClass?: string | null;
  internalTrafficPolicy?: string | null;
}

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];

const isHeadlessService = (spec: ServiceSpec): boolean =>
  spec.clusterIPs?.length === 1 && spec.clusterIPs[0] === 'None';

/**
 * `clusterIP`, `clusterIPs`, `ipFamilies` and `ipFamilyPolicy` of a Service that has cluster
 * IPs, alone and together, as the reference's ValidateServiceClusterIPsRelatedFields (the
 * families of the cluster are the allocator's to check). The addresses are a legacy field:
 * leading zeros and IPv4-mapped addresses pass unless StrictIPCIDRValidation (`strict`) is on
 * and the stored Service does not have them; a mapped address counts as IPv4.
 */
function validateServiceClusterIPFields(
  spec: ServiceSpec,
  oldSpec: ServiceSpec | undefined,
  strict: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  const ipsPath = FieldPath.root('spec', 'clusterIPs');
  const ips = spec.clusterIPs ?? [];
  if (spec.clusterIP) {
    if (ips.length === 0) errors.push(required(ipsPath));
    else if (ips[0] !== spec.clusterIP) errors.push(invalid(ipsPath, ips, 'first value must match `clusterIP`'));
  } else if (ips.length > 0) {
    errors.push(invalid(ipsPath, ips, 'must be empty when `clusterIP` is not specified'));
  }
  const families = new Set<string>();
  (spec.ipFamilies ?? []).forEach((family, i) => {
    const at = FieldPath.root('spec', 'ipFamilies').index(i);
    if (!IP_FAMILIES.includes(family)) errors.push(notSupported(at, family, IP_FAMILIES));
    if (families.has(family)) errors.push(duplicate(at, family));
    families.add(family);
  });
  if (
    spec.ipFamilyPolicy !== undefined &&
    spec.ipFamilyPolicy !== null &&
    !IP_FAMILY_POLICIES.includes(spec.ipFamilyPolicy)
  ) {
    errors.push(notSupported(FieldPath.root('spec', 'ipFamilyPolicy'), spec.ipFamilyPolicy, IP_FAMILY_POLICIES));
  }
  let invalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        invalidIPs = true;
        errors.push(invalid(ipsPath, ips, "'None' must be the first and only value"));
      }
      return;
    }
    const problems = oldSpec?.clusterIPs?.includes(ip) ? [] : isValidIPForLegacyField(ip, strict);
    for (const message of problems) {
      invalidIPs = true;
      errors.push(invalid(ipsPath.index(i), ip, message));
    }
  });
  if (ips.length > 2) errors.push(invalid(ipsPath, ips, 'may only hold up to 2 values'));
  // Errors in the addresses would skew the checks of their families below.
  if (invalidIPs) return errors;
  const isIPv6 = (ip: string) => sloppyIPFamily(ip) === 6;
  if (ips.length > 1 && new Set(ips.map(isIPv6)).size !== ips.length)
    errors.push(invalid(ipsPath, ips, 'may specify no more than one IP for each IP family'));
  if (!isHeadlessService(spec)) {
    ips.forEach((ip, i) => {
      const family = spec.ipFamilies?.[i];
      if (family === 'IPv4' && isIPv6(ip))
        errors.push(invalid(ipsPath.index(i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (family === 'IPv6' && !isIPv6(ip))
        errors.push(invalid(ipsPath.index(i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errors;
}

/**
 * What an update may not do to the addresses and families (the primary ones never change;
 * whether the secondary may go is the allocator's to say, with the family policy), as the
 * reference's validateUpgradeDowngradeClusterIPs and validateUpgradeDowngradeIPFamilies.
 */
function validateServiceClusterIPsUpdate(spec: ServiceSpec, oldSpec: ServiceSpec): FieldError[] {
  if (spec.type === 'ExternalName' || oldSpec.type === 'ExternalName') return [];
  const errors: FieldError[] = [];
  const ips = spec.clusterIPs ?? [];
  const oldIPs = oldSpec.clusterIPs ?? [];
  const firstIP = FieldPath.root('spec', 'clusterIPs').index(0);
  if (!(isHeadlessService(spec) && isHeadlessService(oldSpec))) {
    if (ips.length === oldIPs.length) {
      oldIPs.forEach((ip, i) => {
        if (ip !== ips[i])
          errors.push(invalid(FieldPath.root('spec', 'clusterIPs').index(i), ips, 'may not change once set'));
      });
    } else if (ips.length === 0) {
      errors.push(invalid(firstIP, ips, 'primary clusterIP can not be unset'));
    } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
      errors.push(invalid(firstIP, ips, 'may not change once set'));
    }
  }
  if (isHeadlessService(spec) || isHeadlessService(oldSpec)) return errors;
  const families = spec.ipFamilies ?? [];
  const oldFamilies = oldSpec.ipFamilies ?? [];
  const firstFamily = FieldPath.root('spec', 'ipFamilies').index(0);
  if (families.length === oldFamilies.length) {
    if (oldFamilies.some((family, i) => family !== families[i]))
      errors.push(invalid(firstFamily, families, 'may not change once set'));
  } else if (families.length > 0 && oldFamilies.length > 0 && families[0] !== oldFamilies[0]) {
    errors.push(invalid(firstFamily, ips, 'may not change once set'));
  }
  return errors;
}

/** The older place of a load balancer's source ranges, read when the field is empty. */
const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

/** External IPs, checked as endpoint addresses (by StrictIPCIDRValidation's rules unless the stored Service has them). */
function validateServiceExternalIPs(
  spec: ServiceSpec,
  old: KubeObject | undefined,
  context: WriteContext,
): FieldError[] {
  const strict = context.featureEnabled('StrictIPCIDRValidation');
  const existingIPs = old === undefined ? [] : ((field<ServiceSpec>(old, 'spec') ?? {}).externalIPs ?? []);
  const errors: FieldError[] = [];
  (spec.externalIPs ?? []).forEach((ip, i) => {
    const problems = existingIPs.includes(ip) ? [] : isValidIPForLegacyField(ip, strict);
    const messages = problems.length > 0 ? problems : endpointIPProblems(ip);
    for (const message of messages) errors.push(invalid(FieldPath.root('spec', 'externalIPs').index(i), ip, message));
  });
  return errors;
}

/**
 * A load balancer's source ranges, as CIDRs (the annotation when the field is empty), each by
 * StrictIPCIDRValidation's rules unless the stored Service already has it. They may be
 * space-padded, a historical accident the API keeps.
 */
function validateServiceSourceRanges(
  service: KubeObject,
  old: KubeObject | undefined,
  context: WriteContext,
): FieldError[] {
  const strict = context.featureEnabled('StrictIPCIDRValidation');
  const spec = field<ServiceSpec>(service, 'spec') ?? {};
  const oldSpec = old === undefined ? undefined : (field<ServiceSpec>(old, 'spec') ?? {});
  const errors: FieldError[] = [];
  const notLoadBalancer = (path: FieldPath) =>
    spec.type === 'LoadBalancer' ? [] : [forbidden(path, "may only be used when `type` is 'LoadBalancer'")];
  const ranges = spec.loadBalancerSourceRanges ?? [];
  if (ranges.length > 0) {
    // The reference spells this path with a capital L.
    const path = FieldPath.root('spec', 'LoadBalancerSourceRanges');
    errors.push(...notLoadBalancer(path));
    const existing = (oldSpec?.loadBalancerSourceRanges ?? []).map((range) => range.trim());
    ranges.forEach((range, i) => {
      const value = range.trim();
      if (existing.includes(value)) return;
      for (const message of isValidCIDRForLegacyField(value, strict))
        errors.push(invalid(path.index(i), value, message));
    });
    return errors;
  }
  const annotation = service.metadata.annotations?.[SOURCE_RANGES_ANNOTATION];
  if (annotation === undefined) return errors;
  const path = FieldPath.root('metadata', 'annotations').key(SOURCE_RANGES_ANNOTATION);
  errors.push(...notLoadBalancer(path));
  if (old !== undefined && old.metadata.annotations?.[SOURCE_RANGES_ANNOTATION] === annotation) return errors;
  if (annotation.trim() === '') return errors;
  for (const range of annotation.trim().split(','))
    for (const message of isValidCIDRForLegacyField(range.trim(), strict))
      errors.push(invalid(path, range.trim(), message));
  return errors;
}

/** Where a Service prefers its traffic to go; the two narrower values need PreferSameTrafficDistribution. */
function validateTrafficDistribution(spec: ServiceSpec, context: WriteContext): FieldError[] {
  if (spec.trafficDistribution === undefined || spec.trafficDistribution === null) return [];
  const supported = context.featureEnabled('PreferSameTrafficDistribution')
    ? ['PreferClose', 'PreferSameZone', 'PreferSameNode']
    : ['PreferClose'];
  return supported.includes(spec.trafficDistribution)
    ? []
    : [notSupported(FieldPath.root('spec', 'trafficDistribution'), spec.trafficDistribution, supported)];
}

export function validateService(service: KubeObject, context: WriteContext): FieldError[] {
  return validateServiceOver(service, undefined, context);
}

/** The older annotation of a Service's topology mode, which must agree with the newer when both are set. */
const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
/** The longest ClientIP session affinity, a day. */
const MAX_AFFINITY_SECONDS = 86_400;

/** A Service, in the reference's order (its validateService): each check, then the next. */
function validateServiceOver(service: KubeObject, old: KubeObject | undefined, context: WriteContext): FieldError[] {
  const errors: FieldError[] = [];
  const spec = field<ServiceSpec>(service, 'spec') ?? {};
  const specPath = FieldPath.root('spec');
  const annotations = service.metadata.annotations ?? {};
  const hints = annotations[TOPOLOGY_HINTS_ANNOTATION];
  const mode = annotations[TOPOLOGY_MODE_ANNOTATION];
  if (hints !== undefined && mode !== undefined && hints !== mode)
    errors.push(
      invalid(
        FieldPath.root('metadata', 'annotations').key(TOPOLOGY_MODE_ANNOTATION),
        mode,
        `must match annotations[${TOPOLOGY_HINTS_ANNOTATION}] when both are specified`,
      ),
    );
  const ports = spec.ports ?? [];
  const headless = isHeadlessService(spec);
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') errors.push(required(specPath.child('ports')));
  errors.push(...validateServiceOfType(spec));
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = specPath.child('ports').index(i);
    if (ports.length > 1 && !port.name) errors.push(required(at.child('name')));
    else if (port.name) {
      for (const message of isDNS1123Label(port.name)) errors.push(invalid(at.child('name'), port.name, message));
      if (names.has(port.name)) errors.push(duplicate(at.child('name'), port.name));
      names.add(port.name);
    }
    for (const message of isValidPortNum(port.port ?? 0))
      errors.push(invalid(at.child('port'), port.port ?? 0, message));
    errors.push(...validateEnum(port.protocol, ['SCTP', 'TCP', 'UDP'], at.child('protocol'), true));
    if (typeof port.targetPort === 'number') {
      for (const message of isValidPortNum(port.targetPort))
        errors.push(invalid(at.child('targetPort'), port.targetPort, message));
    } else if (typeof port.targetPort === 'string') {
      for (const message of isValidPortName(port.targetPort))
        errors.push(invalid(at.child('targetPort'), port.targetPort, message));
    }
    if (typeof port.appProtocol === 'string')
      for (const message of isQualifiedName(port.appProtocol))
        errors.push(invalid(at.child('appProtocol'), port.appProtocol, message));
  });
  errors.push(...validateLabels(spec.selector, specPath.child('selector')));
  errors.push(...validateEnum(spec.sessionAffinity, ['ClientIP', 'None'], specPath.child('sessionAffinity'), true));
  errors.push(...validateSessionAffinityConfig(spec));
  // An ExternalName's addresses were checked above: it may have none.
  if (spec.type !== 'ExternalName')
    errors.push(
      ...validateServiceClusterIPFields(
        spec,
        old && (field<ServiceSpec>(old, 'spec') ?? {}),
        context.featureEnabled('StrictIPCIDRValidation'),
      ),
    );
  errors.push(...validateServiceExternalIPs(spec, old, context));
  errors.push(...validateEnum(spec.type, SERVICE_TYPES, specPath.child('type'), true));
  if (spec.type === 'ClusterIP')
    ports.forEach((port, i) => {
      if ((port.nodePort ?? 0) !== 0)
        errors.push(
          forbidden(specPath.child('ports').index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"),
        );
    });
  errors.push(...duplicateServicePorts(ports));
  errors.push(...validateServiceSourceRanges(service, old, context));
  if (
    spec.allocateLoadBalancerNodePorts !== undefined &&
    spec.allocateLoadBalancerNodePorts !== null &&
    spec.type !== 'LoadBalancer'
  )
    errors.push(
      forbidden(specPath.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"),
    );
  errors.push(...validateLoadBalancerClass(spec));
  errors.push(...validateServiceTrafficFields(spec));
  if (spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null) {
    // Other types may leave it out: older stored Services did, before it was checked.
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP')
      errors.push(required(specPath.child('internalTrafficPolicy')));
  } else
    errors.push(
      ...validateEnum(spec.internalTrafficPolicy, ['Cluster', 'Local'], specPath.child('internalTrafficPolicy')),
    );
  errors.push(...validateTrafficDistribution(spec, context));
  return errors;
}

/** What a Service's type requires or forbids: no headless node port or load balancer, an ExternalName's name and nothing of cluster IPs. */
function validateServiceOfType(spec: ServiceSpec): FieldError[] {
  const specPath = FieldPath.root('spec');
  if ((spec.type === 'LoadBalancer' || spec.type === 'NodePort') && isHeadlessService(spec))
    return [
      invalid(specPath.child('clusterIPs').index(0), 'None', `may not be set to 'None' for ${spec.type} services`),
    ];
  if (spec.type !== 'ExternalName') return [];
  const errors: FieldError[] = [];
  if ((spec.clusterIPs?.length ?? 0) > 0)
    errors.push(forbidden(specPath.child('clusterIPs'), 'may not be set for ExternalName services'));
  if ((spec.ipFamilies?.length ?? 0) > 0)
    errors.push(forbidden(specPath.child('ipFamilies'), 'may not be set for ExternalName services'));
  if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null)
    errors.push(forbidden(specPath.child('ipFamilyPolicy'), 'may not be set for ExternalName services'));
  // A trailing dot marks the name (a CNAME) fully qualified.
  const cname = (spec.externalName ?? '').replace(/\.$/, '');
  if (cname === '') errors.push(required(specPath.child('externalName')));
  else
    for (const message of isDNS1123Subdomain(cname))
      errors.push(invalid(specPath.child('externalName'), cname, message));
  return errors;
}

/** ClientIP affinity needs its timeout, within a day; None takes no configuration. */
function validateSessionAffinityConfig(spec: ServiceSpec): FieldError[] {
  const path = FieldPath.root('spec', 'sessionAffinityConfig');
  const config = spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'None')
    return config === undefined || config === null
      ? []
      : [forbidden(path, 'must not be set when session affinity is None')];
  if (spec.sessionAffinity !== 'ClientIP') return [];
  const when = 'when session affinity type is ClientIP';
  if (config === undefined || config === null) return [required(path, when)];
  if (config.clientIP === undefined || config.clientIP === null) return [required(path.child('clientIP'), when)];
  const timeout = config.clientIP.timeoutSeconds;
  const timeoutPath = path.child('clientIP', 'timeoutSeconds');
  if (timeout === undefined || timeout === null) return [required(timeoutPath, when)];
  return timeout <= 0 || timeout > MAX_AFFINITY_SECONDS
    ? [invalid(timeoutPath, timeout, `must be greater than 0 and less than ${MAX_AFFINITY_SECONDS}`)]
    : [];
}

/**
 * Two ports of a protocol on one port, printed as the reference's key: its internal ServicePort
 * struct in Go's JSON (field names as declared). Two on one node port are the allocator's to
 * refuse (service-hooks.ts), "provided port is already allocated", as the reference's allocates
 * before it validates.
 */
function duplicateServicePorts(ports: readonly ServicePort[]): FieldError[] {
  const errors: FieldError[] = [];
  const portsPath = FieldPath.root('spec', 'ports');
  const seen = new Set<string>();
  ports.forEach((port, i) => {
    const key = `${port.protocol ?? ''}/${port.port ?? 0}`;
    if (seen.has(key))
      errors.push(
        duplicate(
          portsPath.index(i),
          new GoValue(
            JSON.stringify({
              Name: '',
              Protocol: port.protocol ?? '',
              AppProtocol: null,
              Port: port.port ?? 0,
              TargetPort: 0,
              NodePort: 0,
            }),
          ),
        ),
      );
    seen.add(key);
  });
  return errors;
}

/** A load balancer class is a qualified name, and only a load balancer's. */
function validateLoadBalancerClass(spec: ServiceSpec): FieldError[] {
  const value = spec.loadBalancerClass;
  if (value === undefined || value === null) return [];
  const path = FieldPath.root('spec', 'loadBalancerClass');
  if (spec.type !== 'LoadBalancer') return [forbidden(path, "may only be used when `type` is 'LoadBalancer'")];
  return isQualifiedName(value).map((message) => invalid(path, value, message));
}

function validateLoadBalancerClassUpdate(spec: ServiceSpec, oldSpec: ServiceSpec): FieldError[] {
  const value = spec.loadBalancerClass ?? null;
  const changed =
    spec.type === 'LoadBalancer' && oldSpec.type === 'LoadBalancer' && value !== (oldSpec.loadBalancerClass ?? null);
  return [
    ...(changed ? [invalid(FieldPath.root('spec', 'loadBalancerClass'), value, 'may not change once set')] : []),
    ...validateLoadBalancerClass(spec),
  ];
}

/** Reached from outside the cluster: on node ports, or on external IPs. */
function externallyAccessible(spec: ServiceSpec): boolean {
  return (
    spec.type === 'LoadBalancer' ||
    spec.type === 'NodePort' ||
    (spec.type === 'ClusterIP' && (spec.externalIPs?.length ?? 0) > 0)
  );
}

function needsHealthCheckNodePort(spec: ServiceSpec): boolean {
  return spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/** The fields that only some types of Service take: external traffic policy, health check port. */
function validateServiceTrafficFields(spec: ServiceSpec): FieldError[] {
  const errors: FieldError[] = [];
  const specPath = FieldPath.root('spec');
  if (spec.externalTrafficPolicy) {
    if (!externallyAccessible(spec))
      errors.push(
        invalid(
          specPath.child('externalTrafficPolicy'),
          spec.externalTrafficPolicy,
          'may only be set for externally-accessible services',
        ),
      );
    else
      errors.push(
        ...validateEnum(
          spec.externalTrafficPolicy,
          ['Cluster', 'Local'],
          specPath.child('externalTrafficPolicy'),
          true,
        ),
      );
  }
  if ((spec.healthCheckNodePort ?? 0) !== 0 && !needsHealthCheckNodePort(spec)) {
    errors.push(
      invalid(
        specPath.child('healthCheckNodePort'),
        spec.healthCheckNodePort,
        "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
      ),
    );
  }
  return errors;
}

export function validateServiceUpdate(service: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  const spec = field<ServiceSpec>(service, 'spec') ?? {};
  const oldSpec = field<ServiceSpec>(old, 'spec') ?? {};
  // The reference judges the class as an update first (where it may not change between two load
  // balancers), then again with the rest, as a create does.
  const errors = [...validateLoadBalancerClassUpdate(spec, oldSpec), ...validateServiceOver(service, old, context)];
  // A health check port left out is kept (allocators/service-hooks.ts); another one is refused.
  const healthCheckNodePort = spec.healthCheckNodePort ?? 0;
  if (
    needsHealthCheckNodePort(oldSpec) &&
    needsHealthCheckNodePort(spec) &&
    healthCheckNodePort !== 0 &&
    healthCheckNodePort !== oldSpec.healthCheckNodePort
  ) {
    errors.push(forbidden(FieldPath.root('spec', 'healthCheckNodePort'), 'field is immutable'));
  }
  // Addresses the reference finds wrong in themselves are all it reports of them.
  const addressErrors =
    spec.type === 'ExternalName'
      ? []
      : validateServiceClusterIPFields(spec, oldSpec, context.featureEnabled('StrictIPCIDRValidation'));
  if (addressErrors.length === 0) errors.push(...validateServiceClusterIPsUpdate(spec, oldSpec));
  // A main update keeps the stored status (cleared when the type leaves LoadBalancer).
  errors.push(...validateServiceLoadBalancerStatus(service, old, context.featureEnabled('StrictIPCIDRValidation')));
  return errors;
}

/** Total bytes allowed in a ConfigMap's or Secret's data. */
export const MAX_DATA_SIZE = 1024 * 1024;

export function validateConfigMap(configMap: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const data = field<Record<string, string>>(configMap, 'data') ?? {};
  const binaryData = field<Record<string, string>>(configMap, 'binaryData') ?? {};
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const message of isConfigMapKey(key)) errors.push(invalid(FieldPath.root('data').key(key), key, message));
    if (key in binaryData)
      errors.push(invalid(FieldPath.root('data').key(key), key, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(value);
  }
  for (const [key, value] of Object.entries(binaryData)) {
    for (const message of isConfigMapKey(key))
      errors.push(invalid(FieldPath.root('binaryData').key(key), key, message));
    size += Buffer.from(value, 'base64').length;
  }
  if (size > MAX_DATA_SIZE) errors.push(tooLong(FieldPath.wholeObject(), MAX_DATA_SIZE));
  return errors;
}

/**
 * A data map as the reference's reflect.DeepEqual sees it in an update: the stored object comes
 * from protobuf, which keeps no empty map, so an empty map stored is nil; the one sent is what
 * the JSON decoder made of it, so `{}` is a map and differs from nil. Where a default fills a
 * missing map (SetDefaults_ConfigMap's `data`, run on every decode, sent and stored alike),
 * missing and empty are the same map on both sides.
 */
function dataMapAsGo(value: unknown, { stored, defaulted }: { stored: boolean; defaulted: boolean }): unknown {
  const isMap = value !== undefined && value !== null;
  const empty = isMap && typeof value === 'object' && Object.keys(value).length === 0;
  if (defaulted) return isMap ? value : {};
  return !isMap || (stored && empty) ? undefined : value;
}

/**
 * ConfigMaps and Secrets marked immutable keep their data (and the mark) for good, compared as
 * reflect.DeepEqual compares the internal maps (nil apart from empty, see dataMapAsGo).
 */
function immutableDataErrors(
  next: KubeObject,
  old: KubeObject,
  dataFields: readonly { name: string; defaulted: boolean }[],
): FieldError[] {
  if (old.immutable !== true) return [];
  const errors: FieldError[] = [];
  if (next.immutable !== true)
    errors.push(forbidden(FieldPath.root('immutable'), 'field is immutable when `immutable` is set'));
  for (const { name, defaulted } of dataFields) {
    const sent = dataMapAsGo(next[name], { stored: false, defaulted });
    const stored = dataMapAsGo(old[name], { stored: true, defaulted });
    if (!deepEqual(sent ?? null, stored ?? null))
      errors.push(forbidden(FieldPath.root(name), 'field is immutable when `immutable` is set'));
  }
  return errors;
}

export function validateConfigMapUpdate(configMap: KubeObject, old: KubeObject): FieldError[] {
  return immutableDataErrors(configMap, old, [
    { name: 'data', defaulted: true },
    { name: 'binaryData', defaulted: false },
  ]);
}

/**
 * Go's json.Unmarshal of a docker configuration into a map: nothing when it holds an object (or
 * null), else the decoder's words.
 */
function dockerConfigProblem(base64: string): string | undefined {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return goJSONSyntaxError(text);
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  return `json: cannot unmarshal ${goTypeOf(value)} into Go value of type map[string]interface {}`;
}

/** What the reference prints instead of a secret's contents. */
const REDACTED = '<secret contents redacted>';

export function validateSecret(secret: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const data = field<Record<string, string>>(secret, 'data') ?? {};
  const dataPath = FieldPath.root('data');
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const message of isConfigMapKey(key)) errors.push(invalid(dataPath.key(key), key, message));
    size += Buffer.from(value, 'base64').length;
  }
  if (size > MAX_DATA_SIZE) errors.push(tooLong(dataPath, MAX_DATA_SIZE));
  const type = field<string>(secret, 'type') ?? '';
  switch (type) {
    case 'kubernetes.io/service-account-token':
      // Only the name: its uid and token may come later, from a controller.
      if (!secret.metadata.annotations?.['kubernetes.io/service-account.name'])
        errors.push(required(FieldPath.root('metadata', 'annotations').key('kubernetes.io/service-account.name')));
      break;
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!(key in data)) errors.push(required(dataPath.key(key)));
      else {
        const problem = dockerConfigProblem(data[key]);
        if (problem !== undefined) errors.push(invalid(dataPath.key(key), REDACTED, problem));
      }
      break;
    }
    case 'kubernetes.io/basic-auth':
      // Either may be empty, but one must be there.
      if (!('username' in data) && !('password' in data))
        errors.push(required(dataPath.key('username')), required(dataPath.key('password')));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!data['ssh-privatekey']) errors.push(required(dataPath.key('ssh-privatekey')));
      break;
    case 'kubernetes.io/tls':
      for (const key of ['tls.crt', 'tls.key']) if (!(key in data)) errors.push(required(dataPath.key(key)));
      break;
  }
  return errors;
}

export function validateSecretUpdate(secret: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...immutable(FieldPath.root('type'), secret.type ?? '', old.type ?? ''),
    ...immutableDataErrors(secret, old, [{ name: 'data', defaulted: false }]),
  ];
}

/** The spec's finalizers, each reported at the list's path (the reference's ValidateNamespace). */
export function validateNamespace(namespace: KubeObject): FieldError[] {
  const path = FieldPath.root('spec', 'finalizers');
  const finalizers = field<{ finalizers?: string[] }>(namespace, 'spec')?.finalizers ?? [];
  return finalizers.flatMap((finalizer) => validateFinalizerName(finalizer, path));
}

/**
 * A namespace's phase says whether it is being deleted: Active until its deletionTimestamp is
 * set, Terminating after (the reference names the field by its Go name, `Phase`).
 */
export function validateNamespaceStatusUpdate(namespace: KubeObject): FieldError[] {
  // An empty phase is the reference's default, Active (defaultNamespace leaves it to the strategy).
  const phase = field<{ phase?: string }>(namespace, 'status')?.phase || 'Active';
  const path = FieldPath.root('status', 'Phase');
  if (namespace.metadata.deletionTimestamp == null)
    return phase === 'Active' ? [] : [invalid(path, phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  return phase === 'Terminating'
    ? []
    : [invalid(path, phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
}

/** The finalizers a PUT /finalize writes, each checked alone and named by its index, as the reference's finalize rules do. */
export function validateNamespaceFinalize(namespace: KubeObject): FieldError[] {
  const path = FieldPath.root('spec', 'finalizers');
  const finalizers = field<{ finalizers?: string[] }>(namespace, 'spec')?.finalizers ?? [];
  return finalizers.flatMap((finalizer, i) => validateFinalizerName(finalizer, path.index(i)));
}

export function validatePersistentVolumeClaim(claim: KubeObject): FieldError[] {
  return validateClaimSpecOver(claim, undefined);
}

/** A claim's spec, written over `old` (absent on create). */
export function validateClaimSpecOver(claim: KubeObject, old: KubeObject | undefined): FieldError[] {
  const oldSpec = old === undefined ? undefined : field<ClaimSpec>(old, 'spec');
  const namesGroup = (source: DataSourceReference | undefined) => source?.apiGroup != null;
  return validatePersistentVolumeClaimSpec(field<ClaimSpec>(claim, 'spec'), FieldPath.root('spec'), {
    anyApiGroup: namesGroup(oldSpec?.dataSource) || namesGroup(oldSpec?.dataSourceRef),
    anyLabelValues:
      oldSpec !== undefined &&
      validateLabelSelector(oldSpec.selector, FieldPath.root(), { allowInvalidLabelValues: false }).length > 0,
  });
}

const POD_CIDR_FIXED = 'node updates may not change podCIDR except from "" to valid';

/** A Node's pod CIDRs: each a CIDR (StrictIPCIDRValidation's rules with the gate on), at most one a family. */
function validatePodCIDRs(spec: Json, context: WriteContext): FieldError[] {
  const cidrs = podCIDRsOf(spec);
  const path = FieldPath.root('spec', 'podCIDRs');
  const errors: FieldError[] = [];
  cidrs.forEach((cidr, i) => {
    for (const message of isValidCIDRForLegacyField(cidr, context.featureEnabled('StrictIPCIDRValidation')))
      errors.push(invalid(path.index(i), cidr, message));
  });
  // A pair of one family each is dual-stack; the reference cannot tell for CIDRs that do not parse.
  const families = cidrs.map(ipFamilyOf);
  if (cidrs.length > 1 && !families.includes(0) && (cidrs.length > 2 || families[0] === families[1]))
    errors.push(invalid(path, cidrs, 'may specify no more than one CIDR for each IP family'));
  return errors;
}

export function validateNode(node: KubeObject, context: WriteContext): FieldError[] {
  const spec = field<Json>(node, 'spec') ?? {};
  return [
    ...validateNodeTaints(spec.taints as Parameters<typeof validateNodeTaints>[0]),
    ...validateNodeResources(node),
    ...validatePodCIDRs(spec, context),
  ];
}

/** A Node's pod CIDRs: its defaults (defaultNode) have already brought `podCIDR` into the list. */
function podCIDRsOf(spec: Json): string[] {
  return Array.isArray(spec.podCIDRs) ? (spec.podCIDRs as string[]) : [];
}

/**
 * A Node's status amounts and addresses are judged first; its pod CIDRs and provider ID are set
 * once (a controller may fill them when empty) and its external ID never changes; its kept
 * kubelet config sources are checked, and its taints again, after those.
 */
export function validateNodeUpdate(node: KubeObject, old: KubeObject): FieldError[] {
  const spec = field<Json>(node, 'spec') ?? {};
  const oldSpec = field<Json>(old, 'spec') ?? {};
  const errors: FieldError[] = [...validateNodeResources(node), ...duplicateNodeAddresses(node)];
  const [cidrs, oldCidrs] = [podCIDRsOf(spec), podCIDRsOf(oldSpec)];
  if (oldCidrs.length > 0) {
    if (cidrs.length !== oldCidrs.length) errors.push(forbidden(FieldPath.root('spec', 'podCIDRs'), POD_CIDR_FIXED));
    else
      oldCidrs.forEach((cidr, i) => {
        if (cidr !== cidrs[i]) errors.push(forbidden(FieldPath.root('spec', 'podCIDRs'), POD_CIDR_FIXED));
      });
  }
  const [providerID, oldProviderID] = [spec.providerID ?? '', oldSpec.providerID ?? ''];
  if (oldProviderID !== '' && oldProviderID !== providerID)
    errors.push(
      forbidden(FieldPath.root('spec', 'providerID'), 'node updates may not change providerID except from "" to valid'),
    );
  errors.push(...validateNodeConfig(node));
  errors.push(...validateNodeTaints(spec.taints as Parameters<typeof validateNodeTaints>[0]));
  if ((spec.externalID ?? '') !== (oldSpec.externalID ?? ''))
    errors.push(forbidden(FieldPath.root('spec', 'externalID'), 'may not be updated'));
  return errors;
}

interface ReplicationControllerSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: Record<string, string>;
  template?: PodTemplateShape;
}

/**
 * What the reference's ValidateUpdate reports of the spec before the update's own metadata check:
 * its ValidateReplicationController of the new controller.
 */
export function validateReplicationControllerOnUpdate(
  controller: KubeObject,
  old: KubeObject,
  context: WriteContext,
): FieldError[] {
  return handWrittenShown(context, handWrittenReplicationControllerErrors(controller, context, old));
}

/**
 * The reference's ValidateReplicationControllerUpdate checks the spec again after the metadata:
 * each hand-written cause shows twice, the first time before (validateReplicationControllerOnUpdate).
 * The declarative rules are compared with both, and their errors, with takeover, come last.
 */
export function validateReplicationControllerUpdate(
  controller: KubeObject,
  old: KubeObject,
  context: WriteContext,
): FieldError[] {
  const errors = handWrittenReplicationControllerErrors(controller, context, old);
  const shownBefore = handWrittenShown(context, errors).length;
  return withDeclarativeValidation(context, [...errors, ...errors], () =>
    replicationControllerDeclarativeErrors(controller, old),
  ).slice(shownBefore);
}

export function validateReplicationController(controller: KubeObject, context: WriteContext): FieldError[] {
  return withDeclarativeValidation(context, handWrittenReplicationControllerErrors(controller, context), () =>
    replicationControllerDeclarativeErrors(controller),
  );
}

/** `old`: the stored controller, on update. */
function handWrittenReplicationControllerErrors(
  controller: KubeObject,
  context: WriteContext,
  old?: KubeObject,
): DeclarativeFieldError[] {
  const errors: DeclarativeFieldError[] = [];
  const spec = field<ReplicationControllerSpec>(controller, 'spec') ?? {};
  const specPath = FieldPath.root('spec');
  errors.push(
    ...coveredByDeclarative(validateNonnegative(spec.minReadySeconds, specPath.child('minReadySeconds')), 'minimum'),
  );
  // The reference only asks for a non-empty selector: its keys and values go unchecked.
  const selector = spec.selector ?? {};
  if (Object.keys(selector).length === 0) errors.push(required(specPath.child('selector')));
  errors.push(...coveredByDeclarative(validateNonnegative(spec.replicas, specPath.child('replicas')), 'minimum'));
  if (spec.template === undefined) {
    errors.push(required(specPath.child('template')));
    return errors;
  }
  const labels = spec.template.metadata?.labels ?? {};
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errors.push(
      invalid(
        specPath.child('template', 'metadata', 'labels'),
        spec.template.metadata?.labels ?? null,
        '`selector` does not match template `labels`',
      ),
    );
  }
  errors.push(
    ...validatePodTemplateSpec(
      spec.template,
      specPath.child('template'),
      podValidationOptions(
        context.featureEnabled,
        old === undefined ? undefined : field<ReplicationControllerSpec>(old, 'spec')?.template,
      ),
    ),
  );
  const restartPolicy = spec.template.spec?.restartPolicy;
  if (restartPolicy !== undefined && restartPolicy !== 'Always') {
    errors.push(notSupported(specPath.child('template', 'spec', 'restartPolicy'), restartPolicy, ['Always']));
  }
  if (spec.template.spec?.activeDeadlineSeconds !== undefined) {
    errors.push(
      forbidden(
        specPath.child('template', 'spec', 'activeDeadlineSeconds'),
        'activeDeadlineSeconds in ReplicationController is not Supported',
      ),
    );
  }
  return errors;
}
