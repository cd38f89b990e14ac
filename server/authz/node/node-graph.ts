/**
 * What each node may reach, kept current by informers, with the edges of the reference's node
 * authorizer graph (1.34): the pods bound to a node (`spec.nodeName`); through a pod that is not
 * a mirror pod, the secrets, config maps, claims, service account and resource claims it uses;
 * through a claim, the persistent volumes whose `claimRef` names it, and the secrets those
 * volumes hand to the kubelet; and the volume attachments and resource slices whose
 * `spec.nodeName` is the node. The Node authorizer asks it per request, in memory.
 *
 * Resource slices join the graph only while DynamicResourceAllocation is on: the reference then
 * gives the graph no slice informer, so a node reaches no slice by name.
 */
import type { ObjectStorage } from '../../../storage/objects/types';
import { startInformer, type Informer } from '../../client/informer';
import { podReferences, volumeSecrets } from './pod-references';

import type { KubeObject } from '../../../api/objects';
/** What a node's graph may lead to by name within a pod's namespace. */
export type NamespacedObjectKind =
  'pods' | 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'serviceaccounts' | 'resourceclaims';
/** Cluster-scoped objects the graph ties to one node. */
export type ClusterObjectKind = 'persistentvolumes' | 'volumeattachments' | 'resourceslices';

type Fields = Record<string, unknown>;
const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
const nameOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export interface NodeGraphStorages {
  readonly pods: ObjectStorage;
  readonly persistentVolumes: ObjectStorage;
  readonly volumeAttachments: ObjectStorage;
  /** Absent while DynamicResourceAllocation is off. */
  readonly resourceSlices?: ObjectStorage;
}

export class NodeGraph {
  /** node → pod `namespace/name` → what it references (`<kind>/<name>`). */
  private readonly podsByNode = new Map<string, Map<string, Set<string>>>();
  private readonly nodeOfPod = new Map<string, string>();
  /** claim `namespace/name` → the persistent volumes whose claimRef names it. */
  private readonly volumesByClaim = new Map<string, Set<string>>();
  private readonly volumes: Informer;
  private readonly attachments: Informer;
  private readonly slices: Informer | undefined;
  private readonly informers: Informer[];
  readonly synced: Promise<void>;

  constructor(storages: NodeGraphStorages) {
    const pods = startInformer(storages.pods, {
      onUpsert: (pod) => this.setPod(pod),
      onDelete: (pod) => this.removePod(pod),
    });
    this.volumes = startInformer(storages.persistentVolumes, {
      onUpsert: (volume, old) => {
        if (old !== undefined) this.unindexVolume(old);
        this.indexVolume(volume);
      },
      onDelete: (volume) => this.unindexVolume(volume),
    });
    this.attachments = startInformer(storages.volumeAttachments, {});
    this.slices = storages.resourceSlices && startInformer(storages.resourceSlices, {});
    this.informers = [pods, this.volumes, this.attachments, ...(this.slices ? [this.slices] : [])];
    this.synced = Promise.all(this.informers.map((informer) => informer.synced)).then(() => undefined);
  }

  private setPod(pod: KubeObject): void {
    this.removePod(pod);
    const node = nameOf(record(pod.spec).nodeName);
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

  private claimOf(volume: KubeObject): string | undefined {
    const claimRef = record(record(volume.spec).claimRef);
    const claim = nameOf(claimRef.name);
    return claim === undefined ? undefined : `${nameOf(claimRef.namespace) ?? ''}/${claim}`;
  }

  private indexVolume(volume: KubeObject): void {
    const claim = this.claimOf(volume);
    if (claim === undefined) return;
    let names = this.volumesByClaim.get(claim);
    if (names === undefined) this.volumesByClaim.set(claim, (names = new Set()));
    names.add(String(volume.metadata.name));
  }

  private unindexVolume(volume: KubeObject): void {
    const claim = this.claimOf(volume);
    const names = claim === undefined ? undefined : this.volumesByClaim.get(claim);
    names?.delete(String(volume.metadata.name));
    if (names?.size === 0) this.volumesByClaim.delete(claim!);
  }

  /** Whether a pod bound to `node` uses this object of its namespace (or is this pod). */
  reaches(node: string, kind: NamespacedObjectKind, namespace: string, objectName: string): boolean {
    const pods = this.podsByNode.get(node);
    if (pods === undefined) return false;
    if (kind === 'pods') return pods.has(`${namespace}/${objectName}`);
    if (this.podsUsing(pods, `${kind}/${objectName}`, namespace)) return true;
    return (
      kind === 'secrets' &&
      this.volumesOf(node).some((volume) => volumeSecrets(volume).includes(`${namespace}/${objectName}`))
    );
  }

  /** Whether this cluster-scoped object leads to `node`. */
  reachesClusterObject(node: string, kind: ClusterObjectKind, objectName: string): boolean {
    if (kind === 'persistentvolumes') return this.volumesOf(node).some((volume) => volume.metadata.name === objectName);
    const informer = kind === 'volumeattachments' ? this.attachments : this.slices;
    return nameOf(record(informer?.objects.get(objectName)?.spec).nodeName) === node;
  }

  private podsUsing(pods: ReadonlyMap<string, ReadonlySet<string>>, ref: string, namespace: string): boolean {
    for (const [podKey, refs] of pods) if (podKey.startsWith(`${namespace}/`) && refs.has(ref)) return true;
    return false;
  }

  /** The persistent volumes whose claim a pod of `node` uses. */
  private volumesOf(node: string): KubeObject[] {
    const found: KubeObject[] = [];
    for (const [podKey, refs] of this.podsByNode.get(node) ?? []) {
      const namespace = podKey.slice(0, podKey.indexOf('/'));
      for (const ref of refs) {
        if (!ref.startsWith('persistentvolumeclaims/')) continue;
        for (const volumeName of this.volumesByClaim.get(
          `${namespace}/${ref.slice('persistentvolumeclaims/'.length)}`,
        ) ?? []) {
          const volume = this.volumes.objects.get(volumeName);
          if (volume !== undefined) found.push(volume);
        }
      }
    }
    return found;
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
  }
}
