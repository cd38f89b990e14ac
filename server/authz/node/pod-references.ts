/**
 * The API objects a pod or a persistent volume names, as the reference's visitors find them:
 * the node authorizer's graph gives a node the objects its pods use, and NodeRestriction keeps
 * a node's mirror pods from naming any.
 */
import type { KubeObject } from '../../../api/objects';
import { isMirrorPod } from '../../registry/kinds/mirror-pod';

type Fields = Record<string, unknown>;

const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
const list = (value: unknown): Fields[] => (Array.isArray(value) ? value.map(record) : []);
const nameOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Volume sources of a pod whose `secretRef` names a secret of its namespace. */
const POD_VOLUME_SECRET_REFS: readonly string[] = [
  'cephfs',
  'cinder',
  'flexVolume',
  'iscsi',
  'rbd',
  'scaleIO',
  'storageos',
];

function containersOf(spec: Fields): Fields[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
}

/** The secrets of its namespace a pod names: pull secrets, environment and volumes. */
export function podSecretNames(pod: KubeObject): string[] {
  const spec = record(pod.spec);
  const names: (string | undefined)[] = list(spec.imagePullSecrets).map((secret) => nameOf(secret.name));
  for (const container of containersOf(spec)) {
    for (const envFrom of list(container.envFrom)) names.push(nameOf(record(envFrom.secretRef).name));
    for (const env of list(container.env)) names.push(nameOf(record(record(env.valueFrom).secretKeyRef).name));
  }
  for (const volume of list(spec.volumes)) {
    names.push(nameOf(record(volume.secret).secretName), nameOf(record(volume.azureFile).secretName));
    for (const source of POD_VOLUME_SECRET_REFS) names.push(nameOf(record(record(volume[source]).secretRef).name));
    names.push(nameOf(record(record(volume.csi).nodePublishSecretRef).name));
    for (const projection of list(record(volume.projected).sources)) names.push(nameOf(record(projection.secret).name));
  }
  return names.filter((name): name is string => name !== undefined);
}

/** The config maps of its namespace a pod names: environment and volumes. */
export function podConfigMapNames(pod: KubeObject): string[] {
  const spec = record(pod.spec);
  const names: (string | undefined)[] = [];
  for (const container of containersOf(spec)) {
    for (const envFrom of list(container.envFrom)) names.push(nameOf(record(envFrom.configMapRef).name));
    for (const env of list(container.env)) names.push(nameOf(record(record(env.valueFrom).configMapKeyRef).name));
  }
  for (const volume of list(spec.volumes)) {
    names.push(nameOf(record(volume.configMap).name));
    for (const projection of list(record(volume.projected).sources))
      names.push(nameOf(record(projection.configMap).name));
  }
  return names.filter((name): name is string => name !== undefined);
}

/**
 * The resource claims a pod uses: those it names, those made for it from a template (named in
 * its status once made; a template entry without a status names no claim yet), and the claim
 * made for its extended resources.
 */
export function podResourceClaimNames(pod: KubeObject): string[] {
  const spec = record(pod.spec);
  const status = record(pod.status);
  const made = new Map(
    list(status.resourceClaimStatuses).map((entry) => [entry.name, nameOf(entry.resourceClaimName)]),
  );
  const names: (string | undefined)[] = list(spec.resourceClaims).map(
    (claim) =>
      nameOf(claim.resourceClaimName) ?? (nameOf(claim.resourceClaimTemplateName) ? made.get(claim.name) : undefined),
  );
  names.push(nameOf(record(status.extendedResourceClaimStatus).resourceClaimName));
  return names.filter((name): name is string => name !== undefined);
}

/**
 * Every object of the pod's namespace it uses, keyed `<kind>/<name>`. A mirror pod (made by a
 * kubelet from a file) uses nothing: a node must never gain access to objects by creating one.
 */
export function podReferences(pod: KubeObject): Set<string> {
  const refs = new Set<string>();
  if (isMirrorPod(pod)) return refs;
  const spec = record(pod.spec);
  const serviceAccount = nameOf(spec.serviceAccountName);
  if (serviceAccount !== undefined) refs.add(`serviceaccounts/${serviceAccount}`);
  for (const name of podSecretNames(pod)) refs.add(`secrets/${name}`);
  for (const name of podConfigMapNames(pod)) refs.add(`configmaps/${name}`);
  for (const volume of list(spec.volumes)) {
    const claim = nameOf(record(volume.persistentVolumeClaim).claimName);
    if (claim !== undefined) refs.add(`persistentvolumeclaims/${claim}`);
    // A generic ephemeral volume's claim is named after the pod and the volume.
    else if (volume.ephemeral !== undefined)
      refs.add(`persistentvolumeclaims/${pod.metadata.name}-${String(volume.name)}`);
  }
  for (const name of podResourceClaimNames(pod)) refs.add(`resourceclaims/${name}`);
  return refs;
}

const PV_SECRET_REF_SOURCES: readonly string[] = ['cephfs', 'flexVolume', 'iscsi', 'rbd', 'scaleIO'];
/** The CSI secrets the kubelet uses; the controller-side ones are no business of a node. */
const KUBELET_CSI_SECRET_REFS: readonly string[] = [
  'nodePublishSecretRef',
  'nodeStageSecretRef',
  'nodeExpandSecretRef',
];

/**
 * The secrets (`namespace/name`) a persistent volume hands to the kubelet; a reference without a
 * namespace means the namespace of the claim the volume is bound to.
 */
export function volumeSecrets(volume: KubeObject): string[] {
  const spec = record(volume.spec);
  const claimNamespace = nameOf(record(spec.claimRef).namespace) ?? '';
  const secrets: string[] = [];
  const add = (namespace: string | undefined, name: unknown) => {
    if (nameOf(name) !== undefined) secrets.push(`${namespace ?? claimNamespace}/${String(name)}`);
  };
  const azure = record(spec.azureFile);
  add(nameOf(azure.secretNamespace), azure.secretName);
  for (const source of PV_SECRET_REF_SOURCES) {
    const ref = record(record(spec[source]).secretRef);
    add(nameOf(ref.namespace), ref.name);
  }
  // Cinder's and StorageOS's references are read as written, without the claim's namespace.
  for (const source of ['cinder', 'storageos']) {
    const ref = record(record(spec[source]).secretRef);
    add(nameOf(ref.namespace) ?? '', ref.name);
  }
  for (const field of KUBELET_CSI_SECRET_REFS) {
    const ref = record(record(spec.csi)[field]);
    add(nameOf(ref.namespace) ?? '', ref.name);
  }
  return secrets;
}
