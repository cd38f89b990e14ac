/**
 * What the reference warns of when a pod spec is written, in a Pod or in any kind's pod template
 * (its pkg/api/pod warnings.go, warningsForPodSpecAndMeta), each text a 1.34 kube-apiserver's and
 * in its order: fields that name deprecated node labels or volume plugins, annotations that no
 * longer do anything, duplicates the API accepts but that apply or services resolve wrongly,
 * fractional byte counts, and addresses in a non-standard form.
 */
import { goQuote } from '../../api/go-quote';
import type { KubeObject } from '../../api/objects';
import { FieldPath } from '../status/field-errors';
import type { WriteContext } from '../registry/types';
import { isDNS1123Label } from './names';
import {
  APPARMOR_CONTAINER_ANNOTATION_PREFIX,
  appArmorAnnotationWarning,
  appArmorProfileOf,
  sameProfile,
} from './apparmor-annotations';
import { fractionalByteWarning } from './fractional-bytes';
import { containersOf } from './pod-containers';
import { SECCOMP_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION } from './seccomp-annotations';
import { nodeLabelDeprecation, nodeSelectorTermWarnings } from './deprecated-node-labels';
import { warningsForIP } from './ip';
import { persistentVolumeClaimSpecWarnings } from './storage-warnings';
import { overlappingPathWarnings } from './volume-path-overlaps';

type Json = Record<string, unknown>;

interface Container {
  name?: string;
  env?: { name?: string; value?: string; valueFrom?: unknown }[];
  ports?: ContainerPort[];
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  securityContext?: { seccompProfile?: unknown; appArmorProfile?: unknown };
}

interface ContainerPort {
  name?: string;
  hostPort?: number;
  containerPort?: number;
  protocol?: string;
  hostIP?: string;
}

interface PodAffinityTerm {
  labelSelector?: unknown;
}

interface PodSpec {
  nodeSelector?: Record<string, string>;
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Json[] };
      preferredDuringSchedulingIgnoredDuringExecution?: { preference?: Json }[];
    };
    podAffinity?: PodAffinity;
    podAntiAffinity?: PodAffinity;
  };
  topologySpreadConstraints?: { topologyKey?: string; labelSelector?: unknown }[];
  volumes?: (Json & { name?: string })[];
  hostAliases?: { ip?: string }[];
  imagePullSecrets?: { name?: string }[];
  overhead?: Record<string, string>;
  securityContext?: { seccompProfile?: unknown; appArmorProfile?: unknown };
  initContainers?: Container[];
  containers?: Container[];
  ephemeralContainers?: Container[];
  terminationGracePeriodSeconds?: number;
  dnsConfig?: { nameservers?: string[] };
}

interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: { podAffinityTerm?: PodAffinityTerm }[];
}

const DEPRECATED_ANNOTATIONS: readonly [string, string][] = [
  ['scheduler.alpha.kubernetes.io/critical-pod', 'non-functional in v1.16+; use the "priorityClassName" field instead'],
  ['security.alpha.kubernetes.io/sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
  ['security.alpha.kubernetes.io/unsafe-sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
];

/**
 * Volume plugins removed from the kubelet: the field's JSON name, the name the reference's path
 * gives it (its internal Go field's, `storageOS` where v1 writes `storageos`), and its history.
 */
type RemovedPlugin = readonly [string, string, string];
const REMOVED_VOLUME_PLUGINS: readonly RemovedPlugin[] = [
  ['photonPersistentDisk', 'photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['scaleIO', 'scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['flocker', 'flocker', 'deprecated in v1.22, non-functional in v1.25+'],
  ['storageos', 'storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  ['quobyte', 'quobyte', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
];
const REMOVED_CEPH_PLUGINS: readonly RemovedPlugin[] = [
  ['cephfs', 'cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['rbd', 'rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

const SECCOMP_MESSAGE = 'non-functional in v1.27+; use the "seccompProfile" field instead';
const NULL_SELECTOR_MESSAGE = 'a null labelSelector results in matching no pod';
const BYTE_RESOURCES = ['memory', 'ephemeral-storage'];

/** Entries after the first with the same `key`, each as `<path>: duplicate <what> "<key>"`. */
function duplicateWarnings<T>(
  items: readonly T[] | undefined,
  keyOf: (item: T) => string,
  warn: (i: number, key: string) => string,
): string[] {
  if ((items ?? []).length < 2) return [];
  const seen = new Set<string>();
  return (items ?? []).flatMap((item, i) => {
    const key = keyOf(item);
    if (seen.has(key)) return [warn(i, key)];
    seen.add(key);
    return [];
  });
}

function nodeSchedulingWarnings(spec: PodSpec, specPath: FieldPath): string[] {
  const warnings = Object.keys(spec.nodeSelector ?? {}).flatMap((key) => {
    const why = nodeLabelDeprecation(key);
    return why === undefined ? [] : [`${specPath.child('nodeSelector').key(key).toString()}: ${why}`];
  });
  const nodeAffinity = spec.affinity?.nodeAffinity;
  if (nodeAffinity) {
    const affinityPath = specPath.child('affinity', 'nodeAffinity');
    const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    if (required) {
      const termsPath = affinityPath.child('requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
      (required.nodeSelectorTerms ?? []).forEach((term, i) =>
        warnings.push(...nodeSelectorTermWarnings(term, false, termsPath.index(i))),
      );
    }
    const preferredPath = affinityPath.child('preferredDuringSchedulingIgnoredDuringExecution');
    (nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term, i) =>
      warnings.push(...nodeSelectorTermWarnings(term.preference, true, preferredPath.index(i).child('preference'))),
    );
  }
  (spec.topologySpreadConstraints ?? []).forEach((constraint, i) => {
    const at = specPath.child('topologySpreadConstraints').index(i);
    const why = nodeLabelDeprecation(constraint.topologyKey ?? '');
    if (why !== undefined) warnings.push(`${at.child('topologyKey').toString()}: ${constraint.topologyKey} is ${why}`);
    if (constraint.labelSelector === undefined || constraint.labelSelector === null)
      warnings.push(`${at.child('labelSelector').toString()}: ${NULL_SELECTOR_MESSAGE}`);
  });
  return warnings;
}

function volumeWarnings(spec: PodSpec, specPath: FieldPath, gitRepoEnabled: boolean): string[] {
  return (spec.volumes ?? []).flatMap((volume, i) => {
    const at = specPath.child('volumes').index(i);
    const removed = (plugins: readonly RemovedPlugin[]): string[] =>
      plugins
        .filter(([json]) => isSet(volume[json]))
        .map(([, name, history]) => `${at.child(name).toString()}: ${history}`);
    const warnings = removed(REMOVED_VOLUME_PLUGINS);
    // Validation allows one source per volume, so where gitRepo's warning falls among these is moot.
    if (isSet(volume.gitRepo))
      warnings.push(
        `${at.child('gitRepo').toString()}: deprecated in v1.11${gitRepoEnabled ? '' : ', and disabled by default in v1.33+'}`,
      );
    const claimTemplate = (volume.ephemeral as { volumeClaimTemplate?: { spec?: Json } } | undefined)
      ?.volumeClaimTemplate;
    if (isSet(claimTemplate))
      warnings.push(
        ...persistentVolumeClaimSpecWarnings(
          at.child('ephemeral', 'volumeClaimTemplate', 'spec'),
          (claimTemplate?.spec ?? {}) as Json,
        ),
      );
    warnings.push(...removed(REMOVED_CEPH_PLUGINS));
    return warnings;
  });
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

interface ContainerContext {
  readonly annotations: Record<string, string>;
  readonly annotationsPath: FieldPath;
  /** Pods warn of AppArmor annotations elsewhere; only templates do here. */
  readonly isTemplate: boolean;
  readonly podAppArmorProfile: unknown;
}

function containerWarnings(container: Container, at: FieldPath, context: ContainerContext): string[] {
  const { annotations, annotationsPath } = context;
  const warnings: string[] = [];
  const seccompKey = SECCOMP_CONTAINER_ANNOTATION_PREFIX + (container.name ?? '');
  if (!isSet(container.securityContext?.seccompProfile) && Object.hasOwn(annotations, seccompKey))
    warnings.push(`${annotationsPath.key(seccompKey).toString()}: ${SECCOMP_MESSAGE}`);
  const appArmorKey = APPARMOR_CONTAINER_ANNOTATION_PREFIX + (container.name ?? '');
  if (
    context.isTemplate &&
    !isSet(container.securityContext?.appArmorProfile) &&
    Object.hasOwn(annotations, appArmorKey) &&
    !sameProfile(context.podAppArmorProfile, appArmorProfileOf(annotations[appArmorKey]))
  )
    warnings.push(appArmorAnnotationWarning(appArmorKey, annotationsPath));
  const resources = container.resources ?? {};
  for (const resource of BYTE_RESOURCES) {
    warnings.push(
      ...fractionalByteWarning(at.child('resources', 'limits').key(resource), resources.limits?.[resource]),
    );
    warnings.push(
      ...fractionalByteWarning(at.child('resources', 'requests').key(resource), resources.requests?.[resource]),
    );
  }
  warnings.push(...hiddenEnvWarnings(container, at));
  return warnings;
}

/**
 * A later env entry of a name already set hides the first, and apply may drop one of them: the
 * reference lets pass only a redefinition that reads the earlier value (`X=$(X)suffix`).
 */
function hiddenEnvWarnings(container: Container, at: FieldPath): string[] {
  const env = container.env ?? [];
  if (env.length < 2) return [];
  const seen = new Set<string>();
  return env.flatMap((item, i) => {
    const name = item.name ?? '';
    if (!seen.has(name)) {
      seen.add(name);
      return [];
    }
    const value = item.value ?? '';
    const ref = `$(${name})`;
    const bad = isSet(item.valueFrom) || value === ref || !value.includes(ref);
    return bad
      ? [
          `${at.child('env').index(i).toString()}: hides previous definition of ${goQuote(name)}, which may be dropped when using apply`,
        ]
      : [];
  });
}

/** A port as Go's `%+v` prints the reference's internal ContainerPort. */
function goPort(port: ContainerPort): string {
  return `{Name:${port.name ?? ''} HostPort:${port.hostPort ?? 0} ContainerPort:${port.containerPort ?? 0} Protocol:${port.protocol ?? ''} HostIP:${port.hostIP ?? ''}}`;
}

function portWarnings(containers: readonly [Container, FieldPath][]): string[] {
  const warnings: string[] = [];
  const byPort = new Map<string, { path: FieldPath; port: ContainerPort }[]>();
  for (const [container, at] of containers) {
    (container.ports ?? []).forEach((port, i) => {
      const path = at.child('ports').index(i);
      const hostIP = port.hostIP ?? '';
      const hostPort = port.hostPort ?? 0;
      if (hostIP !== '' && hostPort === 0)
        warnings.push(`${path.toString()}: hostIP set without hostPort: ${goPort(port)}`);
      const key = `${port.containerPort ?? 0}/${port.protocol ?? ''}`;
      const others = byPort.get(key) ?? [];
      for (const other of others) {
        const otherIP = other.port.hostIP ?? '';
        const otherPort = other.port.hostPort ?? 0;
        if (hostIP === otherIP && hostPort === otherPort)
          warnings.push(`${path.toString()}: duplicate port definition with ${other.path.toString()}`);
        else if (hostPort === 0 || otherPort === 0)
          warnings.push(`${path.toString()}: overlapping port definition with ${other.path.toString()}`);
        else if (hostPort === otherPort && (hostIP === '') !== (otherIP === ''))
          warnings.push(`${path.toString()}: dangerously ambiguous port definition with ${other.path.toString()}`);
      }
      byPort.set(key, [...others, { path, port }]);
    });
  }
  const byName = new Map<string, FieldPath>();
  for (const [container, at] of containers) {
    (container.ports ?? []).forEach((port, i) => {
      if (!port.name) return;
      const path = at.child('ports').index(i);
      const other = byName.get(port.name);
      if (other === undefined) byName.set(port.name, path);
      else
        warnings.push(
          `${path.toString()}: duplicate port name ${goQuote(port.name)} with ${other.toString()}, services and probes that select ports by name will use ${other.toString()}`,
        );
    });
  }
  return warnings;
}

function podAffinityWarnings(affinity: PodAffinity | undefined, path: FieldPath): string[] {
  if (!affinity) return [];
  const requiredPath = path.child('requiredDuringSchedulingIgnoredDuringExecution');
  const preferredPath = path.child('preferredDuringSchedulingIgnoredDuringExecution');
  return [
    ...(affinity.requiredDuringSchedulingIgnoredDuringExecution ?? []).flatMap((term, i) =>
      isSet(term.labelSelector)
        ? []
        : [`${requiredPath.index(i).child('labelSelector').toString()}: ${NULL_SELECTOR_MESSAGE}`],
    ),
    ...(affinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).flatMap((term, i) =>
      isSet(term.podAffinityTerm?.labelSelector)
        ? []
        : [`${preferredPath.index(i).child('podAffinityTerm', 'labelSelector').toString()}: ${NULL_SELECTOR_MESSAGE}`],
    ),
  ];
}

/**
 * The warnings of a pod spec and the metadata beside it; `templatePath` names a pod template
 * (`spec.template`), absent for a Pod, whose fields are named from the root.
 */
export function podSpecWarnings(
  spec: PodSpec,
  metadata: { annotations?: Record<string, string> } | undefined,
  templatePath: FieldPath | undefined,
  gitRepoEnabled: boolean,
): string[] {
  const root = templatePath ?? FieldPath.root();
  const specPath = root.child('spec');
  const annotationsPath = root.child('metadata', 'annotations');
  const annotations = metadata?.annotations ?? {};
  const warnings = nodeSchedulingWarnings(spec, specPath);
  for (const [key, message] of DEPRECATED_ANNOTATIONS)
    if (Object.hasOwn(annotations, key)) warnings.push(`${annotationsPath.key(key).toString()}: ${message}`);
  warnings.push(...volumeWarnings(spec, specPath, gitRepoEnabled));
  warnings.push(...overlappingPathWarnings(spec.volumes ?? []));
  warnings.push(
    ...duplicateWarnings(
      spec.hostAliases,
      (alias) => alias.ip ?? '',
      (i, ip) => `${specPath.child('hostAliases').index(i).child('ip').toString()}: duplicate ip ${goQuote(ip)}`,
    ),
    ...duplicateWarnings(
      spec.imagePullSecrets,
      (secret) => secret.name ?? '',
      (i, name) =>
        `${specPath.child('imagePullSecrets').index(i).child('name').toString()}: duplicate name ${goQuote(name)}`,
    ),
  );
  (spec.imagePullSecrets ?? []).forEach((secret, i) => {
    if (!secret.name)
      warnings.push(`${specPath.child('imagePullSecrets').index(i).child('name').toString()}: invalid empty name ""`);
  });
  for (const resource of BYTE_RESOURCES)
    warnings.push(...fractionalByteWarning(specPath.child('overhead').key(resource), spec.overhead?.[resource]));
  if (!isSet(spec.securityContext?.seccompProfile) && Object.hasOwn(annotations, SECCOMP_POD_ANNOTATION))
    warnings.push(`${annotationsPath.key(SECCOMP_POD_ANNOTATION).toString()}: ${SECCOMP_MESSAGE}`);
  const containers = containersOf(spec, specPath);
  const containerContext: ContainerContext = {
    annotations,
    annotationsPath,
    isTemplate: templatePath !== undefined,
    podAppArmorProfile: spec.securityContext?.appArmorProfile,
  };
  for (const [container, at] of containers) warnings.push(...containerWarnings(container, at, containerContext));
  warnings.push(...portWarnings(containers));
  if ((spec.terminationGracePeriodSeconds ?? 0) < 0)
    warnings.push(
      `${specPath.child('terminationGracePeriodSeconds').toString()}: must be >= 0; negative values are invalid and will be treated as 1`,
    );
  warnings.push(
    ...podAffinityWarnings(spec.affinity?.podAffinity, specPath.child('affinity', 'podAffinity')),
    ...podAffinityWarnings(spec.affinity?.podAntiAffinity, specPath.child('affinity', 'podAntiAffinity')),
  );
  (spec.dnsConfig?.nameservers ?? []).forEach((ip, i) =>
    warnings.push(...warningsForIP(specPath.child('dnsConfig', 'nameservers').index(i).toString(), ip)),
  );
  (spec.hostAliases ?? []).forEach(({ ip }, i) =>
    warnings.push(...warningsForIP(specPath.child('hostAliases').index(i).child('ip').toString(), ip ?? '')),
  );
  return warnings;
}

/** `metadata.name: ...` when a name that the pods' hostnames carry is no DNS label (`use` says how). */
export function hostnameNameWarning(object: KubeObject, use: string): string[] {
  const problems = isDNS1123Label(object.metadata.name ?? '');
  return problems.length === 0
    ? []
    : [
        `metadata.name: this is used in ${use}, which can result in surprising behavior; a DNS label is recommended: [${problems.join(' ')}]`,
      ];
}

/** A Pod's create (the reference does not warn on a pod's update: pods are written often, and seldom by people). */
export function podWarnings(pod: KubeObject, old: KubeObject | undefined, context: WriteContext): string[] {
  if (old !== undefined) return [];
  return [
    ...hostnameNameWarning(pod, "the Pod's hostname"),
    ...podSpecWarnings(
      (pod.spec ?? {}) as PodSpec,
      pod.metadata,
      undefined,
      context.featureEnabled('GitRepoVolumeDriver'),
    ),
  ];
}

/** What moves when an update changes a kind's pod template. */
export type TemplateMarker = (object: KubeObject) => unknown;

const generation: TemplateMarker = (object) => object.metadata.generation;

/** The value at a dotted path (`spec.template`) of an object. */
function valueAt(object: KubeObject, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], object);
}

/**
 * The warnings of the pod template at `path` (`spec.template`, a CronJob's
 * `spec.jobTemplate.spec.template`), on create and on an update that changed the template, which
 * the reference reads from the generation (a DaemonSet's template generation).
 */
export function podTemplateWarnings(
  path: string,
  marker: TemplateMarker = generation,
): (object: KubeObject, old: KubeObject | undefined, context: WriteContext) => string[] {
  return (object, old, context) => {
    if (old !== undefined && marker(object) === marker(old)) return [];
    return templateWarnings(object, path, context);
  };
}

/** The warnings of the pod template at `path` of `object`, whatever changed. */
export function templateWarnings(object: KubeObject, path: string, context: WriteContext): string[] {
  const template = valueAt(object, path) as
    { spec?: PodSpec; metadata?: { annotations?: Record<string, string> } } | undefined;
  if (template === undefined || template === null) return [];
  return podSpecWarnings(
    template.spec ?? {},
    template.metadata,
    FieldPath.root(...path.split('.')),
    context.featureEnabled('GitRepoVolumeDriver'),
  );
}
