/**
 * Pod spec and pod template validation: the subset of the reference's ValidatePodSpec that
 * catches the common mistakes (missing containers, names, images, bad ports and enum values),
 * with the reference's paths and texts.
 */
import type { FieldError } from '../status/field-error';
import { deepEqual, duplicate, FieldPath, forbidden, invalid, required } from './field-errors';
import { isDNS1123Label, isValidPortName, isValidPortNum } from './names';
import { validateAnnotations, validateEnum, validateLabels, validateNonnegative } from './object-meta';

type Json = Record<string, unknown>;

interface ContainerPort {
  name?: string;
  containerPort?: number;
  hostPort?: number;
  protocol?: string;
}

interface Container {
  name?: string;
  image?: string;
  ports?: ContainerPort[];
  env?: { name?: string }[];
  imagePullPolicy?: string;
  terminationMessagePolicy?: string;
}

export interface PodSpecShape {
  containers?: Container[];
  initContainers?: Container[];
  volumes?: { name?: string }[];
  restartPolicy?: string;
  dnsPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  [field: string]: unknown;
}

export interface PodTemplateShape {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: PodSpecShape;
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['FallbackToLogsOnError', 'File'];
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'];

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
    else for (const message of isValidPortNum(port.containerPort)) errors.push(invalid(at.child('containerPort'), port.containerPort, message));
    if (port.hostPort) for (const message of isValidPortNum(port.hostPort)) errors.push(invalid(at.child('hostPort'), port.hostPort, message));
    errors.push(...validateEnum(port.protocol, PROTOCOLS, at.child('protocol'), true));
  });
  return errors;
}

function validateContainers(containers: readonly Container[], path: FieldPath, seenNames: Set<string>): FieldError[] {
  const errors: FieldError[] = [];
  containers.forEach((container, i) => {
    const at = path.index(i);
    if (!container.name) {
      errors.push(required(at.child('name')));
    } else {
      const messages = isDNS1123Label(container.name);
      for (const message of messages) errors.push(invalid(at.child('name'), container.name, message));
      if (messages.length === 0 && seenNames.has(container.name)) errors.push(duplicate(at.child('name'), container.name));
      seenNames.add(container.name);
    }
    if (!container.image) errors.push(required(at.child('image')));
    errors.push(...validatePorts(container.ports ?? [], at.child('ports')));
    (container.env ?? []).forEach((env, j) => {
      if (!env.name) errors.push(required(at.child('env').index(j).child('name')));
    });
    errors.push(...validateEnum(container.imagePullPolicy, PULL_POLICIES, at.child('imagePullPolicy'), true));
    errors.push(...validateEnum(container.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES, at.child('terminationMessagePolicy'), true));
  });
  return errors;
}

/** Runs on defaulted specs: fields the defaults always fill are required here, as in the reference. */
export function validatePodSpec(spec: PodSpecShape | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const podSpec = spec ?? {};
  const volumeNames = new Set<string>();
  (podSpec.volumes ?? []).forEach((volume, i) => {
    const at = path.child('volumes').index(i);
    if (!volume.name) return void errors.push(required(at.child('name')));
    for (const message of isDNS1123Label(volume.name)) errors.push(invalid(at.child('name'), volume.name, message));
    if (volumeNames.has(volume.name)) errors.push(duplicate(at.child('name'), volume.name));
    volumeNames.add(volume.name);
  });
  const containerNames = new Set<string>();
  if (!podSpec.containers || podSpec.containers.length === 0) errors.push(required(path.child('containers')));
  else errors.push(...validateContainers(podSpec.containers, path.child('containers'), containerNames));
  errors.push(...validateContainers(podSpec.initContainers ?? [], path.child('initContainers'), containerNames));
  errors.push(...validateEnum(podSpec.restartPolicy, RESTART_POLICIES, path.child('restartPolicy'), true));
  errors.push(...validateEnum(podSpec.dnsPolicy, DNS_POLICIES, path.child('dnsPolicy'), true));
  errors.push(...validateNonnegative(podSpec.terminationGracePeriodSeconds, path.child('terminationGracePeriodSeconds')));
  if (typeof podSpec.activeDeadlineSeconds === 'number' && podSpec.activeDeadlineSeconds < 1) {
    errors.push(invalid(path.child('activeDeadlineSeconds'), podSpec.activeDeadlineSeconds, 'must be between 1 and 2147483647, inclusive'));
  }
  return errors;
}

export function validatePodTemplateSpec(template: PodTemplateShape | undefined, path: FieldPath): FieldError[] {
  if (template === undefined) return [required(path)];
  const errors: FieldError[] = [];
  errors.push(...validateLabels(template.metadata?.labels, path.child('metadata', 'labels')));
  errors.push(...validateAnnotations(template.metadata?.annotations, path.child('metadata', 'annotations')));
  errors.push(...validatePodSpec(template.spec, path.child('spec')));
  if ((template.spec as Json | undefined)?.ephemeralContainers !== undefined) {
    errors.push(forbidden(path.child('spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errors;
}

const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** The fields a pod update may change, blanked so that the rest can be compared. */
function mutableFieldsMasked(spec: PodSpecShape | undefined): Json {
  const copy: Json = structuredClone(spec ?? {});
  const maskImages = (containers: unknown) => {
    if (Array.isArray(containers)) for (const c of containers as Container[]) delete c.image;
  };
  maskImages(copy.containers);
  maskImages(copy.initContainers);
  delete copy.activeDeadlineSeconds;
  delete copy.tolerations;
  delete copy.terminationGracePeriodSeconds;
  return copy;
}

export function validatePodSpecUpdate(next: PodSpecShape | undefined, old: PodSpecShape | undefined): FieldError[] {
  if (deepEqual(mutableFieldsMasked(next), mutableFieldsMasked(old))) return [];
  return [forbidden(FieldPath.root('spec'), POD_UPDATE_FORBIDDEN)];
}
