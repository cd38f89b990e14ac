/**
 * What each node may reach, kept current by informers over pods, persistent volume claims and
 * persistent volumes: the pods bound to it (`spec.nodeName`), and through them the secrets,
 * config maps, claims and service accounts they use; through their claims the bound volumes,
 * and the secrets those volumes name. The Node authorizer asks it per request, in memory.
 */
import type { KubeObject, ObjectStorage } from '../../../storage/objects/types';
import { startInformer, type Informer } from '../../controllers/informer';

export type NodeObjectKind = 'pods' | 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'serviceaccounts';

type Fields = Record<string, unknown>;

const record = (value: unknown): Fields => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {});
const list = (value: unknown): Fields[] => (Array.isArray(value) ? value.map(record) : []);
const name = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The secrets a volume source of a pod names (its namespace's), as the reference visits them. */
const POD_VOLUME_SECRETS: readonly [string, string][] = [
  ['secret', 'secretName'], ['azureFile', 'secretName'],
];
const POD_VOLUME_SECRET_REFS: readonly string[] = ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos'];

/** Every object of the pod's namespace it uses, keyed `<kind>/<name>`. */
export function podReferences(pod: KubeObject): Set<string> {
  const refs = new Set<string>();
  const add = (kind: NodeObjectKind, value: unknown) => {
    const found = name(value);
    if (found) refs.add(`${kind}/${found}`);
  };
  const spec = record(pod.spec);
  add('serviceaccounts', spec.serviceAccountName ?? 'default');
  for (const secret of list(spec.imagePullSecrets)) add('secrets', secret.name);
  for (const container of [...list(spec.containers), ...list(spec.initContainers), ...list(spec.ephemeralContainers)]) {
    for (const env of list(container.env)) {
      const from = record(env.valueFrom);
      add('secrets', record(from.secretKeyRef).name);
      add('configmaps', record(from.configMapKeyRef).name);
    }
    for (const envFrom of list(container.envFrom)) {
      add('secrets', record(envFrom.secretRef).name);
      add('configmaps', record(envFrom.configMapRef).name);
    }
  }
  for (const volume of list(spec.volumes)) {
    for (const [source, field] of POD_VOLUME_SECRETS) add('secrets', record(volume[source])[field]);
    for (const source of POD_VOLUME_SECRET_REFS) add('secrets', record(record(volume[source]).secretRef).name);
    add('secrets', record(record(volume.csi).nodePublishSecretRef).name);
    add('configmaps', record(volume.configMap).name);
    for (const projection of list(record(volume.projected).sources)) {
      add('secrets', record(projection.secret).name);
      add('configmaps', record(projection.configMap).name);
    }
    add('persistentvolumeclaims', record(volume.persistentVolumeClaim).claimName);
    // A generic ephemeral volume's claim is named after the pod and the volume.
    if (volume.ephemeral !== undefined) add('persistentvolumeclaims', `${pod.metadata.name}-${String(volume.name)}`);
  }
  return refs;
}

const PV_SECRET_REF_SOURCES: readonly string[] = ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos'];
const CSI_SECRET_REFS: readonly string[] = ['controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef'];

/** The secrets (`namespace/name`) a persistent volume names; `claimNamespace` for refs without a namespace. */
export function volumeSecrets(volume: KubeObject, claimNamespace: string): string[] {
  const spec = record(volume.spec);
  const secrets: string[] = [];
  const add = (ref: Fields) => {
    const secret = name(ref.name);
    if (secret) secrets.push(`${name(ref.namespace) ?? claimNamespace}/${secret}`);
  };
  const azure = record(spec.azureFile);
  if (name(azure.secretName)) secrets.push(`${name(azure.secretNamespace) ?? claimNamespace}/${String(azure.secretName)}`);
  for (const source of PV_SECRET_REF_SOURCES) add(record(record(spec[source]).secretRef));
  for (const field of CSI_SECRET_REFS) add(record(record(spec.csi)[field]));
  return secrets;
}

export interface NodeGraphStorages {
  readonly pods: ObjectStorage;
  readonly persistentVolumeClaims: ObjectStorage;
  readonly persistentVolumes: ObjectStorage;
}

export class NodeGraph {
  /** node → pod `namespace/name` → what it references. */
  private readonly podsByNode = new Map<string, Map<string, Set<string>>>();
  private readonly nodeOfPod = new Map<string, string>();
  private readonly claims: Informer;
  private readonly volumes: Informer;
  private readonly informers: Informer[];
  readonly synced: Promise<void>;

  constructor(storages: NodeGraphStorages) {
    const pods = startInformer(storages.pods, { onUpsert: (pod) => this.setPod(pod), onDelete: (pod) => this.removePod(pod) });
    this.claims = startInformer(storages.persistentVolumeClaims, {});
    this.volumes = startInformer(storages.persistentVolumes, {});
    this.informers = [pods, this.claims, this.volumes];
    this.synced = Promise.all(this.informers.map((informer) => informer.synced)).then(() => undefined);
  }

  private setPod(pod: KubeObject): void {
    this.removePod(pod);
    const node = name(record(pod.spec).nodeName);
    if (node === undefined) return;
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    let pods = this.podsByNode.get(node);
    if (pods === undefined) this.podsByNode.set(node, (pods = new Map()));
    pods.set(key, podReferences(pod));
    this.nodeOfPod.set(key, node);
  }

  private removePod(pod: KubeObject): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const node = this.nodeOfPod.get(key);
    if (node === undefined) return;
    this.nodeOfPod.delete(key);
    const pods = this.podsByNode.get(node);
    pods?.delete(key);
    if (pods?.size === 0) this.podsByNode.delete(node);
  }

  /** Whether a pod bound to `node` uses this object of its namespace (or is this pod). */
  reaches(node: string, kind: NodeObjectKind, namespace: string, objectName: string): boolean {
    const pods = this.podsByNode.get(node);
    if (pods === undefined) return false;
    if (kind === 'pods') return pods.has(`${namespace}/${objectName}`);
    const ref = `${kind}/${objectName}`;
    for (const [podKey, refs] of pods) if (podKey.startsWith(`${namespace}/`) && refs.has(ref)) return true;
    return kind === 'secrets' && this.volumeSecretsOf(node).has(`${namespace}/${objectName}`);
  }

  /** Whether a claim used by a pod of `node` is bound to this persistent volume. */
  reachesVolume(node: string, volumeName: string): boolean {
    return this.boundVolumes(node).some(({ volume }) => volume.metadata.name === volumeName);
  }

  private boundVolumes(node: string): { volume: KubeObject; claimNamespace: string }[] {
    const found: { volume: KubeObject; claimNamespace: string }[] = [];
    for (const [podKey, refs] of this.podsByNode.get(node) ?? []) {
      const namespace = podKey.slice(0, podKey.indexOf('/'));
      for (const ref of refs) {
        if (!ref.startsWith('persistentvolumeclaims/')) continue;
        const claim = this.claims.objects.get(`${namespace}/${ref.slice('persistentvolumeclaims/'.length)}`);
        const volumeName = name(record(claim?.spec).volumeName);
        const volume = volumeName === undefined ? undefined : this.volumes.objects.get(volumeName);
        if (volume !== undefined) found.push({ volume, claimNamespace: namespace });
      }
    }
    return found;
  }

  private volumeSecretsOf(node: string): Set<string> {
    return new Set(this.boundVolumes(node).flatMap(({ volume, claimNamespace }) => volumeSecrets(volume, claimNamespace)));
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
  }
}
