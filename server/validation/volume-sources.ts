/**
 * A pod's volumes, as the reference's ValidateVolumes and validateVolumeSource check them: each
 * names exactly one source (the first set one, in the reference's order, is checked; each later
 * one is refused), and that source's own fields. A volume whose source or name fails is left
 * out of the volumes containers may mount. The checks of the sources a PersistentVolume shares
 * with a pod's volume are exported for it (persistent-volume-sources.ts).
 */
import { parseQuantity, Quantity } from '../quantity/quantity';
import type { FieldError } from '../status/field-error';
import { duplicate, FieldPath, forbidden, invalid, notSupported, required, tooLong } from '../status/field-errors';
import { goLen, inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain } from './names';
import { downwardAPIVolumeFileErrors } from './downward-api';
import { validatePersistentVolumeClaimTemplate, type ClaimTemplate } from './claim-spec';
import { projectedVolumeErrors, type ProjectionOptions } from './projected-sources';
import { validatePullPolicy } from './pull-policy';
import { fileModeErrors, keyToPathErrors, localDescendingPathErrors, pathNoBackstepsErrors } from './volume-file-paths';
import { isHostPortPair } from '../net/host-port';

type Json = Record<string, unknown>;

export interface Volume {
  name?: string;
  [source: string]: unknown;
}

/** What a volume's rules depend on beyond the volume. */
export interface VolumeContext extends ProjectionOptions {
  /**
   * A Pod's own name ('' while it has none), absent for templates; with it, the claims that
   * ephemeral volumes make are known, and a volume may not name one of them as its claim.
   */
  readonly podName?: string;
}

export interface PodVolumes {
  /** The volumes that passed their checks, by name, with their sources: what mounts may name. */
  readonly mountable: ReadonlyMap<string, Volume>;
  readonly errors: FieldError[];
}

const PARTITION_ERROR = inclusiveRangeError(1, 255);
const ISCSI_IQN = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\s]+)$/;
const ISCSI_EUI = /^eui.[A-Za-z0-9]{16}$/;
const ISCSI_NAA = /^naa.[A-Za-z0-9]{32}$/;
const ISCSI_NAME_LIMIT = 64;
const CSI_DRIVER_NAME_MAX = 63;
const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
];
const AZURE_CACHING_MODES = ['None', 'ReadOnly', 'ReadWrite'];
const AZURE_DISK_KINDS = ['Dedicated', 'Managed', 'Shared'];
const AZURE_MANAGED_DISK_URI =
  '/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}';
const AZURE_BLOB_DISK_URI = 'https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const isSet = (value: unknown): boolean => value !== undefined && value !== null;

/** A CSI driver's name, as the reference's ValidateCSIDriverName (pod volumes and CSINode drivers alike). */
export function validateCSIDriverName(name: string, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (name === '') errors.push(required(path));
  if (goLen(name) > CSI_DRIVER_NAME_MAX) errors.push(tooLong(path, CSI_DRIVER_NAME_MAX));
  for (const message of isDNS1123Subdomain(name.toLowerCase())) errors.push(invalid(path, name, message));
  return errors;
}

function requiredMembers(source: Json, path: FieldPath, members: readonly string[]): FieldError[] {
  return members.filter((member) => text(source[member]) === '').map((member) => required(path.child(member)));
}

export function hostPathErrors(source: Json, path: FieldPath): FieldError[] {
  const hostPath = text(source.path);
  if (hostPath === '') return [required(path.child('path'))];
  const errors = pathNoBackstepsErrors(hostPath, path.child('path'));
  if (isSet(source.type) && !HOST_PATH_TYPES.includes(text(source.type)))
    errors.push(notSupported(path.child('type'), source.type, HOST_PATH_TYPES));
  return errors;
}

function emptyDirErrors(source: Json, path: FieldPath): FieldError[] {
  const sizeLimit = typeof source.sizeLimit === 'string' ? parseQuantity(source.sizeLimit) : undefined;
  return sizeLimit !== undefined && sizeLimit.compareTo(new Quantity(0n)) < 0
    ? [forbidden(path.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity')]
    : [];
}

function gitRepoErrors(source: Json, path: FieldPath): FieldError[] {
  return [
    ...requiredMembers(source, path, ['repository']),
    ...localDescendingPathErrors(text(source.directory), path.child('directory')),
  ];
}

function partitionErrors(source: Json, path: FieldPath): FieldError[] {
  const partition = source.partition;
  return typeof partition === 'number' && (partition < 0 || partition > 255)
    ? [invalid(path.child('partition'), partition, PARTITION_ERROR)]
    : [];
}

export function gcePersistentDiskErrors(source: Json, path: FieldPath): FieldError[] {
  return [...requiredMembers(source, path, ['pdName']), ...partitionErrors(source, path)];
}

export function awsElasticBlockStoreErrors(source: Json, path: FieldPath): FieldError[] {
  return [...requiredMembers(source, path, ['volumeID']), ...partitionErrors(source, path)];
}

/** A secret's or config map's files: the object's name (under `nameMember`), modes, and items. */
function projectedFilesErrors(source: Json, path: FieldPath, nameMember: string): FieldError[] {
  const errors = requiredMembers(source, path, [nameMember]);
  errors.push(...fileModeErrors(source.defaultMode, path.child('defaultMode')));
  ((source.items as Json[] | undefined) ?? []).forEach((item, i) =>
    errors.push(...keyToPathErrors(item, path.child('items').index(i))),
  );
  return errors;
}

export function nfsErrors(source: Json, path: FieldPath): FieldError[] {
  const errors = requiredMembers(source, path, ['server', 'path']);
  if (!text(source.path).startsWith('/'))
    errors.push(invalid(path.child('path'), text(source.path), 'must be an absolute path'));
  return errors;
}

export function glusterfsErrors(source: Json, path: FieldPath): FieldError[] {
  return requiredMembers(source, path, ['endpoints', 'path']);
}

function monitorsErrors(source: Json, path: FieldPath): FieldError[] {
  return ((source.monitors as unknown[] | undefined) ?? []).length === 0 ? [required(path.child('monitors'))] : [];
}

export function rbdErrors(source: Json, path: FieldPath): FieldError[] {
  return [...monitorsErrors(source, path), ...requiredMembers(source, path, ['image'])];
}

export function cephFSErrors(source: Json, path: FieldPath): FieldError[] {
  return monitorsErrors(source, path);
}

/** An iSCSI qualified name (or initiator name): `iqn.`, `eui.` or `naa.` followed by its own form. */
export function iscsiNameProblem(name: string): 'prefix' | 'format' | undefined {
  if (name.startsWith('iqn')) return ISCSI_IQN.test(name) ? undefined : 'format';
  if (name.startsWith('eui')) return ISCSI_EUI.test(name) ? undefined : 'format';
  if (name.startsWith('naa')) return ISCSI_NAA.test(name) ? undefined : 'format';
  return 'prefix';
}

function iscsiNameErrors(name: string, path: FieldPath): FieldError[] {
  const problem = iscsiNameProblem(name);
  if (problem === undefined) return [];
  return [
    invalid(
      path,
      name,
      problem === 'prefix' ? 'must be valid format starting with iqn, eui, or naa' : 'must be valid format',
    ),
  ];
}

function iscsiErrors(source: Json, path: FieldPath): FieldError[] {
  const errors = requiredMembers(source, path, ['targetPortal']);
  const iqn = text(source.iqn);
  if (iqn === '') errors.push(required(path.child('iqn')));
  else errors.push(...iscsiNameErrors(iqn, path.child('iqn')));
  const lun = typeof source.lun === 'number' ? source.lun : 0;
  if (lun < 0 || lun > 255) errors.push(invalid(path.child('lun'), lun, inclusiveRangeError(0, 255)));
  if ((source.chapAuthDiscovery === true || source.chapAuthSession === true) && !isSet(source.secretRef))
    errors.push(required(path.child('secretRef')));
  if (isSet(source.initiatorName))
    errors.push(...iscsiNameErrors(text(source.initiatorName), path.child('initiatorname')));
  return errors;
}

export const ISCSI_INTERFACE_NAME_TOO_LONG =
  'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.';

/**
 * The kubelet names an iSCSI interface `<volume>:<portal>` when it is given an initiator name,
 * which limits it to 64 bytes.
 */
export function isISCSIInterfaceNameTooLong(volumeName: string, source: Json): boolean {
  return (
    isSet(source.initiatorName) && Buffer.byteLength(`${volumeName}:${text(source.targetPortal)}`) > ISCSI_NAME_LIMIT
  );
}

function iscsiInterfaceNameErrors(volume: Volume, path: FieldPath): FieldError[] {
  return isISCSIInterfaceNameTooLong(volume.name ?? '', volume.iscsi as Json)
    ? [invalid(path.child('name'), volume.name ?? '', ISCSI_INTERFACE_NAME_TOO_LONG)]
    : [];
}

function secretRefNameErrors(source: Json, path: FieldPath): FieldError[] {
  const secretRef = source.secretRef as Json | null | undefined;
  return isSet(secretRef) && text(secretRef?.name) === '' ? [required(path.child('secretRef', 'name'))] : [];
}

export function cinderErrors(source: Json, path: FieldPath): FieldError[] {
  return [...requiredMembers(source, path, ['volumeID']), ...secretRefNameErrors(source, path)];
}

export function flockerErrors(source: Json, path: FieldPath): FieldError[] {
  const name = text(source.datasetName);
  const uuid = text(source.datasetUUID);
  const errors: FieldError[] = [];
  if (name === '' && uuid === '') errors.push(required(path, 'one of datasetName and datasetUUID is required'));
  if (name !== '' && uuid !== '')
    errors.push(invalid(path, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
  if (name.includes('/')) errors.push(invalid(path.child('datasetName'), name, "must not contain '/'"));
  return errors;
}

export function quobyteErrors(source: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const registry = text(source.registry);
  const registryMessage = 'must be a host:port pair or multiple pairs separated by commas';
  if (registry === '') errors.push(required(path.child('registry'), registryMessage));
  else if (text(source.tenant).length >= 65)
    errors.push(required(path.child('tenant'), 'must be a UUID and may not exceed a length of 64 characters'));
  else
    for (const pair of registry.split(','))
      if (!isHostPortPair(pair)) errors.push(invalid(path.child('registry'), registry, registryMessage));
  errors.push(...requiredMembers(source, path, ['volume']));
  return errors;
}

export function fcErrors(source: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const wwns = (source.targetWWNs as unknown[] | undefined) ?? [];
  const wwids = (source.wwids as unknown[] | undefined) ?? [];
  if (wwns.length === 0 && wwids.length === 0)
    errors.push(required(path.child('targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
  if (wwns.length !== 0 && wwids.length !== 0)
    errors.push(invalid(path.child('targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'));
  if (wwns.length !== 0) {
    if (!isSet(source.lun)) errors.push(required(path.child('lun'), 'lun is required if targetWWNs is specified'));
    else if ((source.lun as number) < 0 || (source.lun as number) > 255)
      errors.push(invalid(path.child('lun'), source.lun, inclusiveRangeError(0, 255)));
  }
  return errors;
}

/** Options in the kubernetes.io and k8s.io namespaces are the system's own. */
export function flexVolumeErrors(source: Json, path: FieldPath): FieldError[] {
  const errors = requiredMembers(source, path, ['driver']);
  for (const key of Object.keys((source.options as Json | undefined) ?? {})) {
    const namespace = key.includes('/') ? key.slice(0, key.indexOf('/')) : key;
    const normalized = `.${namespace.toLowerCase()}`;
    if (normalized.endsWith('.kubernetes.io') || normalized.endsWith('.k8s.io'))
      errors.push(invalid(path.child('options').key(key), key, 'kubernetes.io and k8s.io namespaces are reserved'));
  }
  return errors;
}

export function azureFileErrors(source: Json, path: FieldPath): FieldError[] {
  return requiredMembers(source, path, ['secretName', 'shareName']);
}

export function vsphereVolumeErrors(source: Json, path: FieldPath): FieldError[] {
  return requiredMembers(source, path, ['volumePath']);
}

export function photonPersistentDiskErrors(source: Json, path: FieldPath): FieldError[] {
  return requiredMembers(source, path, ['pdID']);
}

export function portworxVolumeErrors(source: Json, path: FieldPath): FieldError[] {
  return requiredMembers(source, path, ['volumeID']);
}

export function scaleIOErrors(source: Json, path: FieldPath): FieldError[] {
  return requiredMembers(source, path, ['gateway', 'system', 'volumeName']);
}

export function azureDiskErrors(source: Json, path: FieldPath): FieldError[] {
  const errors = requiredMembers(source, path, ['diskName', 'diskURI']);
  if (isSet(source.cachingMode) && !AZURE_CACHING_MODES.includes(text(source.cachingMode)))
    errors.push(notSupported(path.child('cachingMode'), source.cachingMode, AZURE_CACHING_MODES));
  if (isSet(source.kind) && !AZURE_DISK_KINDS.includes(text(source.kind)))
    errors.push(notSupported(path.child('kind'), source.kind, AZURE_DISK_KINDS));
  const uri = text(source.diskURI);
  if (isSet(source.kind)) {
    if (source.kind === 'Managed' && !uri.startsWith('/subscriptions/'))
      errors.push(notSupported(path.child('diskURI'), uri, [AZURE_MANAGED_DISK_URI]));
    if (source.kind !== 'Managed' && !uri.startsWith('https://'))
      errors.push(notSupported(path.child('diskURI'), uri, [AZURE_BLOB_DISK_URI]));
  }
  return errors;
}

export function storageOSErrors(source: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const volumeName = text(source.volumeName);
  if (volumeName === '') errors.push(required(path.child('volumeName')));
  else
    for (const message of isDNS1123Label(volumeName))
      errors.push(invalid(path.child('volumeName'), volumeName, message));
  const namespace = text(source.volumeNamespace);
  if (namespace !== '')
    for (const message of isDNS1123Label(namespace))
      errors.push(invalid(path.child('volumeNamespace'), namespace, message));
  errors.push(...secretRefNameErrors(source, path));
  return errors;
}

/** A CSI volume's secret is named like a Secret; the reference reports a bad name at `csi.name`. */
function csiErrors(source: Json, path: FieldPath): FieldError[] {
  const errors = validateCSIDriverName(text(source.driver), path.child('driver'));
  const secretRef = source.nodePublishSecretRef as Json | null | undefined;
  if (isSet(secretRef)) {
    const name = text(secretRef?.name);
    if (name === '') errors.push(required(path.child('nodePublishSecretRef', 'name')));
    else for (const message of isDNS1123Subdomain(name)) errors.push(invalid(path.child('name'), name, message));
  }
  return errors;
}

/** Every file's errors are reported at the source's path, without the item's index, as the reference does. */
function downwardAPIErrors(source: Json, path: FieldPath): FieldError[] {
  return [
    ...fileModeErrors(source.defaultMode, path.child('defaultMode')),
    ...((source.items as Json[] | undefined) ?? []).flatMap((file) => downwardAPIVolumeFileErrors(file, path)),
  ];
}

/** An ephemeral volume's claim template, checked as the claim it makes will be. */
function ephemeralErrors(source: Json, path: FieldPath): FieldError[] {
  const template = source.volumeClaimTemplate as ClaimTemplate | null | undefined;
  const templatePath = path.child('volumeClaimTemplate');
  return template == null ? [required(templatePath)] : validatePersistentVolumeClaimTemplate(template, templatePath);
}

interface SourceRule {
  readonly member: string;
  /** Where its own fields are reported, where that differs from `member`. */
  readonly checkedAt?: string;
  /** Where a second source is refused, where that differs from `member` (the reference's spellings). */
  readonly refusedAt?: string;
  readonly check?: (source: Json, path: FieldPath, context: VolumeContext) => FieldError[];
}

/** The sources in the order the reference tries them. */
const SOURCE_RULES: readonly SourceRule[] = [
  { member: 'emptyDir', check: emptyDirErrors },
  { member: 'hostPath', check: hostPathErrors },
  { member: 'gitRepo', check: gitRepoErrors },
  { member: 'gcePersistentDisk', checkedAt: 'persistentDisk', check: gcePersistentDiskErrors },
  { member: 'awsElasticBlockStore', check: awsElasticBlockStoreErrors },
  { member: 'secret', check: (source, path) => projectedFilesErrors(source, path, 'secretName') },
  { member: 'nfs', check: nfsErrors },
  { member: 'iscsi', check: iscsiErrors },
  { member: 'glusterfs', check: glusterfsErrors },
  { member: 'flocker', check: flockerErrors },
  { member: 'persistentVolumeClaim', check: (source, path) => requiredMembers(source, path, ['claimName']) },
  { member: 'rbd', check: rbdErrors },
  { member: 'cinder', check: cinderErrors },
  { member: 'cephfs', refusedAt: 'cephFS', check: cephFSErrors },
  { member: 'quobyte', check: quobyteErrors },
  { member: 'downwardAPI', refusedAt: 'downwarAPI', check: downwardAPIErrors },
  { member: 'fc', check: fcErrors },
  { member: 'flexVolume', check: flexVolumeErrors },
  { member: 'configMap', check: (source, path) => projectedFilesErrors(source, path, 'name') },
  { member: 'azureFile', check: azureFileErrors },
  { member: 'vsphereVolume', check: vsphereVolumeErrors },
  { member: 'photonPersistentDisk', check: photonPersistentDiskErrors },
  { member: 'portworxVolume', check: portworxVolumeErrors },
  { member: 'azureDisk', check: azureDiskErrors },
  { member: 'storageos', check: storageOSErrors },
  { member: 'projected', check: projectedVolumeErrors },
  { member: 'scaleIO', check: scaleIOErrors },
  { member: 'csi', check: csiErrors },
  { member: 'ephemeral', check: ephemeralErrors },
  { member: 'image', check: imageVolumeErrors },
];

/** An image volume: a Pod's names its image (a template's may leave it to whoever fills it in). */
function imageVolumeErrors(source: Json, path: FieldPath, context: VolumeContext): FieldError[] {
  const errors = context.podName !== undefined && !source.reference ? [required(path.child('reference'))] : [];
  return [...errors, ...validatePullPolicy(source.pullPolicy as string | undefined, path.child('pullPolicy'))];
}

/** The claim an ephemeral volume of a pod gets is named `<pod>-<volume>`, which must be an object name. */
function ephemeralClaimNameErrors(volume: Volume, podName: string | undefined, path: FieldPath): FieldError[] {
  if (!podName || !volume.name) return [];
  const claimName = `${podName}-${volume.name}`;
  return isDNS1123Subdomain(claimName).map((message) =>
    invalid(path.child('name'), volume.name, `PVC name ${JSON.stringify(claimName)}: ${message}`),
  );
}

function volumeSourceErrors(volume: Volume, context: VolumeContext, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  let sources = 0;
  for (const rule of SOURCE_RULES) {
    const source = volume[rule.member];
    if (!isSet(source)) continue;
    if (sources++ > 0)
      errors.push(forbidden(path.child(rule.refusedAt ?? rule.member), 'may not specify more than 1 volume type'));
    else {
      errors.push(...(rule.check?.(source as Json, path.child(rule.checkedAt ?? rule.member), context) ?? []));
      if (rule.member === 'ephemeral') errors.push(...ephemeralClaimNameErrors(volume, context.podName, path));
    }
    if (rule.member === 'iscsi') errors.push(...iscsiInterfaceNameErrors(volume, path));
  }
  if (sources === 0) errors.push(required(path, 'must specify a volume type'));
  return errors;
}

export function validateVolumes(volumes: readonly Volume[], context: VolumeContext, path: FieldPath): PodVolumes {
  const { podName } = context;
  const errors: FieldError[] = [];
  const mountable = new Map<string, Volume>();
  const createdClaims = new Set(
    podName
      ? volumes.filter((volume) => isSet(volume.ephemeral)).map((volume) => `${podName}-${volume.name ?? ''}`)
      : [],
  );
  volumes.forEach((volume, i) => {
    const at = path.index(i);
    const name = volume.name ?? '';
    const volumeErrors = volumeSourceErrors(volume, context, at);
    if (name === '') volumeErrors.push(required(at.child('name')));
    else for (const message of isDNS1123Label(name)) volumeErrors.push(invalid(at.child('name'), name, message));
    if (mountable.has(name)) volumeErrors.push(duplicate(at.child('name'), name));
    if (volumeErrors.length === 0) mountable.set(name, volume);
    else errors.push(...volumeErrors);
    const claim = volume.persistentVolumeClaim as Json | null | undefined;
    const claimName = text(claim?.claimName);
    if (isSet(claim) && createdClaims.has(claimName))
      errors.push(
        invalid(
          at.child('persistentVolumeClaim', 'claimName'),
          claimName,
          'must not reference a PVC that gets created for an ephemeral volume',
        ),
      );
  });
  return { mountable, errors };
}
