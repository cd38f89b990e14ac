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

const VOLUME_SOURCE_DEFAULT_MODE = 420; // 0644
/** A projected token lives an hour unless asked otherwise. */
const SERVICE_ACCOUNT_TOKEN_SECONDS = 3600;

function defaultProbe(probe: Json | undefined): void {
  if (!probe) return;
  fill(probe, 'timeoutSeconds', 1);
  fill(probe, 'periodSeconds', 10);
  fill(probe, 'successThreshold', 1);
  fill(probe, 'failureThreshold', 3);
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

/** A Pod's spec: the common defaults plus the Pod-only ones. */
export function defaultPodObjectSpec(spec: Json, featureEnabled: FeatureEnabled): void {
  defaultPodSpec(spec, featureEnabled);
  defaultPodOnly(spec);
}

/** A pod template inside a workload: its metadata is always printed, if only as `{}`. */
export function defaultPodTemplateSpec(template: Json | undefined, featureEnabled: FeatureEnabled): void {
  if (!template) return;
  child(template, 'metadata');
  defaultPodSpec(child(template, 'spec'), featureEnabled);
}

/** The QoS class the reference records in a new Pod's status. */
export function podQOSClass(spec: Json): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...items(spec, 'initContainers'), ...items(spec, 'containers')];
  let anySet = false;
  let guaranteed = containers.length > 0;
  for (const container of containers) {
    const resources = (container.resources as Json | undefined) ?? {};
    const requests = (resources.requests as Record<string, unknown> | undefined) ?? {};
    const limits = (resources.limits as Record<string, unknown> | undefined) ?? {};
    const tracked = (list: Record<string, unknown>) =>
      Object.keys(list).filter((name) => name === 'cpu' || name === 'memory');
    if (tracked(requests).length > 0 || tracked(limits).length > 0) anySet = true;
    for (const name of ['cpu', 'memory']) {
      if (limits[name] === undefined || (requests[name] !== undefined && requests[name] !== limits[name]))
        guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
