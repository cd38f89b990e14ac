/**
 * A PersistentVolume's source, as the reference's ValidatePersistentVolumeSpec checks it: exactly
 * one source (a flex volume counts without ever being refused), and that source's own members.
 * Where a pod's volume of the same kind has the same rules, they are the pod's (volume-sources.ts);
 * a volume's own differ where it has no namespace to find a secret or endpoints in, and where its
 * name, not a pod volume's, makes the kubelet's iSCSI interface name. The in-tree sources whose
 * plugins are gone are still checked as they were. The deprecated mount-options annotation is
 * refused for the sources whose plugins took no mount options (the reference's volume plugin
 * validation).
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, invalid, required } from '../status/field-errors';
import { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain } from './names';
import { pathNoBackstepsErrors } from './volume-file-paths';
import {
  awsElasticBlockStoreErrors,
  azureDiskErrors,
  azureFileErrors,
  cephFSErrors,
  cinderErrors,
  fcErrors,
  flexVolumeErrors,
  flockerErrors,
  gcePersistentDiskErrors,
  glusterfsErrors,
  hostPathErrors,
  ISCSI_INTERFACE_NAME_TOO_LONG,
  iscsiNameProblem,
  isISCSIInterfaceNameTooLong,
  nfsErrors,
  photonPersistentDiskErrors,
  portworxVolumeErrors,
  quobyteErrors,
  rbdErrors,
  scaleIOErrors,
  storageOSErrors,
  validateCSIDriverName,
  vsphereVolumeErrors,
} from './volume-sources';

type Json = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** What a source's rules depend on beyond the source: the volume's name (empty for an inline volume). */
interface SourceContext {
  readonly volumeName: string;
}

interface PersistentVolumeSourceRule {
  readonly member: string;
  /** Where its own members are reported, where that differs from `member`. */
  readonly checkedAt?: string;
  /** Where a second source is refused, where that differs from `member` (the reference's spellings). */
  readonly refusedAt?: string;
  readonly check: (source: Json, path: FieldPath, context: SourceContext) => FieldError[];
}

/** A glusterfs volume may find its endpoints in another namespace than its claim's: a namespace's name. */
function glusterfsPersistentVolumeErrors(source: Json, path: FieldPath): FieldError[] {
  const errors = glusterfsErrors(source, path);
  const namespace = source.endpointsNamespace;
  if (typeof namespace !== 'string') return errors;
  const namespacePath = path.child('endpointsNamespace');
  if (namespace === '')
    errors.push(
      invalid(namespacePath, namespace, 'if the endpointnamespace is set, it must be a valid namespace name'),
    );
  else for (const message of isDNS1123Label(namespace)) errors.push(invalid(namespacePath, namespace, message));
  return errors;
}

/** A volume's iSCSI names are only ever "of valid format", unlike a pod volume's, which names the prefixes. */
function iscsiPersistentVolumeNameErrors(name: string, path: FieldPath): FieldError[] {
  return iscsiNameProblem(name) === undefined ? [] : [invalid(path, name, 'must be valid format')];
}

/**
 * An iSCSI volume: the pod volume's rules in the reference's own order for a PersistentVolume,
 * with the interface name's limit reported at the portal, and a secret that must be named.
 */
function iscsiPersistentVolumeErrors(source: Json, path: FieldPath, { volumeName }: SourceContext): FieldError[] {
  const errors: FieldError[] = [];
  const portal = text(source.targetPortal);
  if (portal === '') errors.push(required(path.child('targetPortal')));
  if (isISCSIInterfaceNameTooLong(volumeName, source))
    errors.push(invalid(path.child('targetportal'), portal, ISCSI_INTERFACE_NAME_TOO_LONG));
  const iqn = text(source.iqn);
  if (iqn === '') errors.push(required(path.child('iqn')));
  else errors.push(...iscsiPersistentVolumeNameErrors(iqn, path.child('iqn')));
  const lun = typeof source.lun === 'number' ? source.lun : 0;
  if (lun < 0 || lun > 255) errors.push(invalid(path.child('lun'), lun, inclusiveRangeError(0, 255)));
  const secretRef = source.secretRef as Json | null | undefined;
  if ((source.chapAuthDiscovery === true || source.chapAuthSession === true) && secretRef == null)
    errors.push(required(path.child('secretRef')));
  if (secretRef != null && text(secretRef.name) === '') errors.push(required(path.child('secretRef', 'name')));
  if (source.initiatorName != null)
    errors.push(...iscsiPersistentVolumeNameErrors(text(source.initiatorName), path.child('initiatorname')));
  return errors;
}

/** A volume's secret has no namespace to default to: one must be named (its form is not checked). */
function secretRefNamespaceErrors(source: Json, path: FieldPath): FieldError[] {
  const secretRef = source.secretRef as Json | null | undefined;
  return secretRef != null && text(secretRef.namespace) === '' ? [required(path.child('secretRef', 'namespace'))] : [];
}

function azureFilePersistentVolumeErrors(source: Json, path: FieldPath): FieldError[] {
  const errors = azureFileErrors(source, path);
  if (source.secretNamespace === '') errors.push(required(path.child('secretNamespace')));
  return errors;
}

/** A local volume is a path on a node, which it may not leave. */
function localErrors(source: Json, path: FieldPath): FieldError[] {
  const localPath = text(source.path);
  return localPath === '' ? [required(path.child('path'))] : pathNoBackstepsErrors(localPath, path.child('path'));
}

/**
 * The secret a PersistentVolume's source names, with the namespace it lives in: a volume has no
 * namespace of its own to default it from (validatePVSecretReference).
 */
function persistentVolumeSecretRefErrors(secretRef: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const [name, namespace] = [text(secretRef.name), text(secretRef.namespace)];
  if (name === '') errors.push(required(path.child('name')));
  else for (const message of isDNS1123Subdomain(name)) errors.push(invalid(path.child('name'), name, message));
  if (namespace === '') errors.push(required(path.child('namespace')));
  else
    for (const message of isDNS1123Label(namespace)) errors.push(invalid(path.child('namespace'), namespace, message));
  return errors;
}

/**
 * The secret references of a CSI PersistentVolume source the reference checks, in its order;
 * nodeStageSecretRef is not among them, and any secret is accepted there.
 */
const CHECKED_CSI_SECRET_REFS = [
  'controllerPublishSecretRef',
  'controllerExpandSecretRef',
  'nodePublishSecretRef',
  'nodeExpandSecretRef',
] as const;

/** A PersistentVolume's CSI source: a driver, a volume handle, and secrets named with their namespace. */
function csiPersistentVolumeErrors(source: Json, path: FieldPath): FieldError[] {
  const errors = validateCSIDriverName(text(source.driver), path.child('driver'));
  if (text(source.volumeHandle) === '') errors.push(required(path.child('volumeHandle')));
  for (const member of CHECKED_CSI_SECRET_REFS) {
    const secretRef = source[member] as Json | null | undefined;
    if (secretRef != null) errors.push(...persistentVolumeSecretRefErrors(secretRef, path.child(member)));
  }
  return errors;
}

/** The sources in the order the reference counts them. */
const PERSISTENT_VOLUME_SOURCE_RULES: readonly PersistentVolumeSourceRule[] = [
  { member: 'hostPath', check: hostPathErrors },
  { member: 'gcePersistentDisk', checkedAt: 'persistentDisk', check: gcePersistentDiskErrors },
  { member: 'awsElasticBlockStore', check: awsElasticBlockStoreErrors },
  { member: 'glusterfs', check: glusterfsPersistentVolumeErrors },
  { member: 'flocker', check: flockerErrors },
  { member: 'nfs', check: nfsErrors },
  { member: 'rbd', check: rbdErrors },
  { member: 'quobyte', check: quobyteErrors },
  { member: 'cephfs', refusedAt: 'cephFS', check: cephFSErrors },
  { member: 'iscsi', check: iscsiPersistentVolumeErrors },
  {
    member: 'cinder',
    check: (source, path) => [...cinderErrors(source, path), ...secretRefNamespaceErrors(source, path)],
  },
  { member: 'fc', check: fcErrors },
  { member: 'flexVolume', check: flexVolumeErrors },
  { member: 'azureFile', check: azureFilePersistentVolumeErrors },
  { member: 'vsphereVolume', check: vsphereVolumeErrors },
  { member: 'photonPersistentDisk', check: photonPersistentDiskErrors },
  { member: 'portworxVolume', check: portworxVolumeErrors },
  { member: 'azureDisk', check: azureDiskErrors },
  { member: 'scaleIO', check: scaleIOErrors },
  { member: 'local', check: localErrors },
  {
    member: 'storageos',
    check: (source, path) => [...storageOSErrors(source, path), ...secretRefNamespaceErrors(source, path)],
  },
  { member: 'csi', check: csiPersistentVolumeErrors },
];

/** The members of a spec that are its source (the reference's PersistentVolumeSource), in its order. */
export const PERSISTENT_VOLUME_SOURCE_MEMBERS: readonly string[] = PERSISTENT_VOLUME_SOURCE_RULES.map(
  (rule) => rule.member,
);

/**
 * Exactly one volume source, with its own members: every one after the first is refused by its
 * name but a flex volume, which is checked wherever it stands. A local volume lives on one node,
 * so it needs the node affinity that says which. A source given as null is none.
 */
export function persistentVolumeSourceErrors(
  spec: Json,
  specPath: FieldPath,
  { volumeName, hasNodeAffinity }: { readonly volumeName: string; readonly hasNodeAffinity: boolean },
): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const rule of PERSISTENT_VOLUME_SOURCE_RULES) {
    const source = spec[rule.member] as Json | null | undefined;
    if (source == null) continue;
    if (count > 0 && rule.member !== 'flexVolume') {
      errors.push(forbidden(specPath.child(rule.refusedAt ?? rule.member), 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errors.push(...rule.check(source, specPath.child(rule.checkedAt ?? rule.member), { volumeName }));
    if (rule.member === 'local' && !hasNodeAffinity)
      errors.push(required(specPath.child('nodeAffinity'), 'Local volume requires node affinity'));
  }
  if (count === 0) errors.push(required(specPath, 'must specify a volume type'));
  return errors;
}

const MOUNT_OPTIONS_ANNOTATION = 'volume.beta.kubernetes.io/mount-options';

/** The sources whose plugins mounted with the options the deprecated annotation gives. */
const SOURCES_WITH_MOUNT_OPTIONS = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'nfs',
  'rbd',
  'quobyte',
  'iscsi',
  'cinder',
  'cephfs',
  'azureFile',
  'vsphereVolume',
  'azureDisk',
  'photonPersistentDisk',
];

/** The mount-options annotation, set at all, on a volume of none of the sources that take mount options. */
export function mountOptionsAnnotationErrors(volume: KubeObject): FieldError[] {
  const spec = (volume.spec ?? {}) as Json;
  const annotations = volume.metadata.annotations ?? {};
  if (!(MOUNT_OPTIONS_ANNOTATION in annotations) || SOURCES_WITH_MOUNT_OPTIONS.some((member) => spec[member] != null))
    return [];
  return [
    forbidden(
      FieldPath.root('metadata', 'annotations', MOUNT_OPTIONS_ANNOTATION),
      'may not specify mount options for this volume type',
    ),
  ];
}
