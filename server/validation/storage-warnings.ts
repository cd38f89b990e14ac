/**
 * What the reference warns of when volumes and their classes are written (its pkg/api
 * persistentvolume, persistentvolumeclaim and storage warnings): annotations replaced by fields,
 * the Recycle reclaim policy, volume plugins the kubelet no longer has, fractional byte counts,
 * and deprecated node labels in topologies.
 */
import type { KubeObject } from '../../api/objects';
import { FieldPath } from '../status/field-errors';
import { nodeLabelDeprecation, nodeLabelSelectorWarnings, nodeSelectorTermWarnings } from './deprecated-node-labels';
import { fractionalByteWarning } from './fractional-bytes';

type Json = Record<string, unknown>;

const STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const STORAGE_CLASS_ANNOTATION_MESSAGE = 'deprecated since v1.8; use "storageClassName" attribute instead';

/** A claim spec's storage request and limit, at `path` (a PVC's `spec`, an ephemeral volume's template). */
export function persistentVolumeClaimSpecWarnings(path: FieldPath, spec: Json): string[] {
  const resources = (spec.resources ?? {}) as { requests?: Record<string, string>; limits?: Record<string, string> };
  return [
    ...fractionalByteWarning(path.child('resources', 'requests').key('storage'), resources.requests?.storage),
    ...fractionalByteWarning(path.child('resources', 'limits').key('storage'), resources.limits?.storage),
  ];
}

/** A PersistentVolumeClaim's create or update. */
export function persistentVolumeClaimWarnings(claim: KubeObject): string[] {
  const annotations = claim.metadata.annotations ?? {};
  return [
    ...(Object.hasOwn(annotations, STORAGE_CLASS_ANNOTATION)
      ? [
          `${FieldPath.root('metadata', 'annotations').key(STORAGE_CLASS_ANNOTATION).toString()}: ${STORAGE_CLASS_ANNOTATION_MESSAGE}`,
        ]
      : []),
    ...persistentVolumeClaimSpecWarnings(FieldPath.root('spec'), (claim.spec ?? {}) as Json),
  ];
}

const PERSISTENT_VOLUME_ANNOTATIONS: readonly [string, string][] = [
  [STORAGE_CLASS_ANNOTATION, STORAGE_CLASS_ANNOTATION_MESSAGE],
  ['volume.beta.kubernetes.io/mount-options', 'deprecated since v1.31; use "mountOptions" attribute instead'],
];

/**
 * Volume sources of a PersistentVolume the kubelet no longer has, in the reference's order: the
 * JSON name, the name its path gives (`storageOS` where v1 writes `storageos`), the history.
 */
const REMOVED_PERSISTENT_VOLUME_PLUGINS: readonly [string, string, string][] = [
  ['cephfs', 'cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['photonPersistentDisk', 'photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['scaleIO', 'scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['storageos', 'storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  ['rbd', 'rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

/** A PersistentVolume's create or update (not its status). */
export function persistentVolumeWarnings(volume: KubeObject): string[] {
  const annotations = volume.metadata.annotations ?? {};
  const spec = (volume.spec ?? {}) as Json & {
    persistentVolumeReclaimPolicy?: string;
    nodeAffinity?: { required?: { nodeSelectorTerms?: Json[] } };
  };
  const warnings = PERSISTENT_VOLUME_ANNOTATIONS.filter(([key]) => Object.hasOwn(annotations, key)).map(
    ([key, message]) => `${FieldPath.root('metadata', 'annotations').key(key).toString()}: ${message}`,
  );
  if (spec.persistentVolumeReclaimPolicy === 'Recycle')
    warnings.push(
      'spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.',
    );
  const termsPath = FieldPath.root('spec', 'nodeAffinity', 'required', 'nodeSelectorTerms');
  (spec.nodeAffinity?.required?.nodeSelectorTerms ?? []).forEach((term, i) =>
    warnings.push(...nodeSelectorTermWarnings(term, false, termsPath.index(i))),
  );
  for (const [json, name, history] of REMOVED_PERSISTENT_VOLUME_PLUGINS)
    if (spec[json] !== undefined && spec[json] !== null) warnings.push(`spec.${name}: ${history}`);
  return warnings;
}

/** A StorageClass's create or update: deprecated node labels its allowed topologies name. */
export function storageClassWarnings(storageClass: KubeObject): string[] {
  const topologies = (storageClass.allowedTopologies ?? []) as { matchLabelExpressions?: { key?: string }[] }[];
  return topologies.flatMap((topology, i) =>
    (topology.matchLabelExpressions ?? []).flatMap((expression, j) => {
      const why = nodeLabelDeprecation(expression.key ?? '');
      const at = FieldPath.root('allowedTopologies').index(i).child('matchLabelExpressions').index(j).child('key');
      return why === undefined ? [] : [`${at.toString()}: ${why}`];
    }),
  );
}

/** A CSIStorageCapacity's create or update: deprecated node labels its node topology selects. */
export function csiStorageCapacityWarnings(capacity: KubeObject): string[] {
  return nodeLabelSelectorWarnings(
    capacity.nodeTopology as Parameters<typeof nodeLabelSelectorWarnings>[0],
    FieldPath.root('nodeTopology'),
  );
}
