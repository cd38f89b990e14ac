/**
 * Pod spec defaults (the reference's core/v1 SetDefaults_PodSpec, _Container, _Probe,
 * _Volume ...), applied to Pods and to every pod template. Also fills the empty structs Go
 * always prints (`resources: {}`, a template's `metadata: {}`) so that objects read back look
 * like the reference's. A 1.34 server no longer prints a template's `creationTimestamp: null`
 * (kubernetes PR 130989), so none is added.
 */
import { child, fill, fillWhenEmpty, items, type Json } from './fill';
import type { FeatureEnabled } from '../types';
import { parseImageReference } from './image-reference';
import { defaultPodLevelResources } from './pod-level-resources';
import { parseQuantity, Quantity } from '../../quantity/quantity';

const VOLUME_SOURCE_DEFAULT_MODE = 420; // 0644
/** A projected token lives an hour unless asked otherwise. */
const SERVICE_ACCOUNT_TOKEN_SECONDS = 3600;

/** Go holds these as plain int32s: a 0 sent is defaulted as one left out (SetDefaults_Probe). */
function defaultProbe(probe: Json | undefined): void {
  if (!probe) return;
  fillWhenEmpty(probe, 'timeoutSeconds', 1);
  fillWhenEmpty(probe, 'periodSeconds', 10);
  fillWhenEmpty(probe, 'successThreshold', 1);
  fillWhenEmpty(probe, 'failureThreshold', 3);
  defaultHandler(probe);
}

/** A probe's or a lifecycle hook's HTTP GET (the reference's SetDefaults_HTTPGetAction). */
function defaultHandler(handler: Json | undefined): void {
  const httpGet = handler?.httpGet as Json | undefined;
  if (httpGet) {
    fillWhenEmpty(httpGet, 'path', '/');
    fillWhenEmpty(httpGet, 'scheme', 'HTTP');
  }
}

/**
 * Always for `:latest` or an image named by neither tag nor digest, else IfNotPresent (also for
 * a reference the reference's parser refuses, and for no image at all).
 */
export function defaultImagePullPolicy(image: string): string {
  const reference = parseImageReference(image);
  if (reference === undefined) return 'IfNotPresent';
  const latest = reference.tag === 'latest' || (reference.tag === '' && reference.digest === '');
  return latest ? 'Always' : 'IfNotPresent';
}

/** The reference's SetDefaults_Container, which fills these strings when empty, not only when left out. */
function defaultContainer(container: Json): void {
  fillWhenEmpty(
    container,
    'imagePullPolicy',
    defaultImagePullPolicy(typeof container.image === 'string' ? container.image : ''),
  );
  fillWhenEmpty(container, 'terminationMessagePath', '/dev/termination-log');
  fillWhenEmpty(container, 'terminationMessagePolicy', 'File');
  fill(container, 'resources', {});
  for (const port of items(container, 'ports')) fillWhenEmpty(port, 'protocol', 'TCP');
  for (const env of items(container, 'env')) {
    const fieldRef = (env.valueFrom as Json | undefined)?.fieldRef as Json | undefined;
    if (fieldRef) fillWhenEmpty(fieldRef, 'apiVersion', 'v1');
  }
  defaultProbe(container.livenessProbe as Json | undefined);
  defaultProbe(container.readinessProbe as Json | undefined);
  defaultProbe(container.startupProbe as Json | undefined);
  const lifecycle = container.lifecycle as Json | undefined;
  defaultHandler(lifecycle?.postStart as Json | undefined);
  defaultHandler(lifecycle?.preStop as Json | undefined);
}

/** Defaults only Pods get, not pod templates (the reference's SetDefaults_Pod). */
function defaultPodOnly(spec: Json): void {
  fill(spec, 'enableServiceLinks', true);
  const containers = [...items(spec, 'initContainers'), ...items(spec, 'containers')];
  for (const container of containers) {
    // Limits without requests: requests default to the limits.
    const resources = child(container, 'resources');
    const limits = resources.limits as Json | undefined;
    if (limits && Object.keys(limits).length > 0) {
      const requests = child(resources, 'requests');
      for (const [name, quantity] of Object.entries(limits)) fill(requests, name, quantity);
    }
    if (spec.hostNetwork === true) {
      for (const port of items(container, 'ports'))
        if (port.containerPort !== undefined) fill(port, 'hostPort', port.containerPort);
    }
  }
}

const VOLUME_SOURCES_WITH_MODE = ['secret', 'configMap', 'downwardAPI', 'projected'];

function defaultVolume(volume: Json, featureEnabled: FeatureEnabled): void {
  const sources = Object.keys(volume).filter((key) => key !== 'name');
  if (sources.length === 0) volume.emptyDir = {};
  // Only while the gate is on: with it off an image volume is kept only where the stored spec
  // had one, and a new one without a policy is refused.
  const image = volume.image as Json | undefined;
  if (featureEnabled('ImageVolume') && image)
    fillWhenEmpty(
      image,
      'pullPolicy',
      defaultImagePullPolicy(typeof image.reference === 'string' ? image.reference : ''),
    );
  for (const source of VOLUME_SOURCES_WITH_MODE) {
    const value = volume[source] as Json | undefined;
    if (value) fill(value, 'defaultMode', VOLUME_SOURCE_DEFAULT_MODE);
  }
  const hostPath = volume.hostPath as Json | undefined;
  if (hostPath) fill(hostPath, 'type', '');
  defaultFieldRefs(volume.downwardAPI as Json | undefined);
  for (const projection of items(volume.projected as Json | undefined, 'sources')) {
    defaultFieldRefs(projection.downwardAPI as Json | undefined);
    const token = projection.serviceAccountToken as Json | undefined;
    if (token) fill(token, 'expirationSeconds', SERVICE_ACCOUNT_TOKEN_SECONDS);
  }
  defaultLegacyVolumeSources(volume);
  const claimTemplate = (volume.ephemeral as Json | undefined)?.volumeClaimTemplate as Json | undefined;
  if (claimTemplate) fill(child(claimTemplate, 'spec'), 'volumeMode', 'Filesystem');
}

/**
 * The defaults the reference's generated code gives the legacy volume sources' members, in a pod
 * volume or a PersistentVolume's spec alike: the plain strings when empty, the azureDisk's
 * pointers only when absent.
 */
export function defaultLegacyVolumeSources(sources: Json): void {
  const sourceAt = (key: string): Json | undefined => {
    const source = sources[key];
    return typeof source === 'object' && source !== null ? (source as Json) : undefined;
  };
  const iscsi = sourceAt('iscsi');
  if (iscsi) fillWhenEmpty(iscsi, 'iscsiInterface', 'default');
  const rbd = sourceAt('rbd');
  if (rbd) {
    fillWhenEmpty(rbd, 'pool', 'rbd');
    fillWhenEmpty(rbd, 'user', 'admin');
    fillWhenEmpty(rbd, 'keyring', '/etc/ceph/keyring');
  }
  const scaleIO = sourceAt('scaleIO');
  if (scaleIO) {
    fillWhenEmpty(scaleIO, 'storageMode', 'ThinProvisioned');
    fillWhenEmpty(scaleIO, 'fsType', 'xfs');
  }
  const azureDisk = sourceAt('azureDisk');
  if (azureDisk) {
    fill(azureDisk, 'cachingMode', 'ReadWrite');
    fill(azureDisk, 'fsType', 'ext4');
    fill(azureDisk, 'readOnly', false);
    fill(azureDisk, 'kind', 'Shared');
  }
}

/** A downward API file's field reference reads the pod at v1 unless it says otherwise. */
function defaultFieldRefs(source: Json | undefined): void {
  for (const file of items(source, 'items')) {
    const fieldRef = file.fieldRef as Json | undefined;
    if (fieldRef) fillWhenEmpty(fieldRef, 'apiVersion', 'v1');
  }
}

/**
 * `serviceAccount` is the deprecated spelling of `serviceAccountName`: the reference's v1
 * conversion reads it when the name is missing and always writes it equal to the name.
 */
function pairServiceAccountFields(spec: Json): void {
  if (!spec.serviceAccountName && typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '')
    spec.serviceAccountName = spec.serviceAccount;
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '')
    spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
}

/** Defaults of every pod spec, in Pods and in templates (SetDefaults_PodSpec and below). */
export function defaultPodSpec(spec: Json, featureEnabled: FeatureEnabled): void {
  pairServiceAccountFields(spec);
  fillWhenEmpty(spec, 'dnsPolicy', 'ClusterFirst');
  fillWhenEmpty(spec, 'restartPolicy', 'Always');
  fill(spec, 'terminationGracePeriodSeconds', 30);
  fill(spec, 'securityContext', {});
  fillWhenEmpty(spec, 'schedulerName', 'default-scheduler');
  for (const container of items(spec, 'initContainers')) defaultContainer(container);
  for (const container of items(spec, 'containers')) defaultContainer(container);
  for (const container of items(spec, 'ephemeralContainers')) defaultContainer(container);
  for (const volume of items(spec, 'volumes')) defaultVolume(volume, featureEnabled);
}

/** A Pod's spec: the common defaults plus the Pod-only ones, pod-level resources last. */
export function defaultPodObjectSpec(spec: Json, featureEnabled: FeatureEnabled): void {
  defaultPodSpec(spec, featureEnabled);
  defaultPodOnly(spec);
  if (featureEnabled('PodLevelResources')) defaultPodLevelResources(spec);
}

/** A pod template inside a workload: its metadata is always printed, if only as `{}`. */
export function defaultPodTemplateSpec(template: Json | undefined, featureEnabled: FeatureEnabled): void {
  if (!template) return;
  child(template, 'metadata');
  defaultPodSpec(child(template, 'spec'), featureEnabled);
}

export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = ['cpu', 'memory'];
const NO_AMOUNT = new Quantity(0n);

/**
 * Adds a resource list's positive CPU and memory amounts to `sums`, and names the resources it
 * found. Text that is no quantity counts for nothing here: validation refuses it.
 */
function addQoSAmounts(sums: Map<string, Quantity>, list: unknown): Set<string> {
  const found = new Set<string>();
  if (typeof list !== 'object' || list === null) return found;
  for (const [name, value] of Object.entries(list as Json)) {
    if (!QOS_RESOURCES.includes(name) || (typeof value !== 'string' && typeof value !== 'number')) continue;
    const amount = parseQuantity(String(value));
    if (amount === undefined || amount.compareTo(NO_AMOUNT) <= 0) continue;
    found.add(name);
    const sum = sums.get(name);
    sums.set(name, sum === undefined ? amount : sum.add(amount));
  }
  return found;
}

/**
 * The QoS class the reference records in a new Pod's status (its ComputePodQOS). The pod-level
 * resources decide where PodLevelResources is on and the spec has them, else the regular and
 * init containers' summed: best effort without any CPU or memory asked for; guaranteed when the
 * limits (each container's, or the pod's when it has some) name both and the requests equal them.
 */
export function podQOSClass(spec: Json, featureEnabled: FeatureEnabled): PodQOSClass {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  const podLevel = spec.resources as Json | null | undefined;
  if (featureEnabled('PodLevelResources') && podLevel !== undefined && podLevel !== null) {
    addQoSAmounts(requests, podLevel.requests);
    const named = addQoSAmounts(limits, podLevel.limits);
    if (Object.keys((podLevel.limits as Json | undefined) ?? {}).length > 0 && named.size < QOS_RESOURCES.length)
      guaranteed = false;
  } else {
    for (const container of [...items(spec, 'containers'), ...items(spec, 'initContainers')]) {
      const resources = container.resources as Json | undefined;
      addQoSAmounts(requests, resources?.requests);
      if (addQoSAmounts(limits, resources?.limits).size < QOS_RESOURCES.length) guaranteed = false;
    }
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  const requestsMatchLimits = [...requests].every(([name, amount]) => limits.get(name)?.compareTo(amount) === 0);
  return guaranteed && requestsMatchLimits && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
