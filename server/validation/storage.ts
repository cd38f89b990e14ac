/** Rules of the storage.k8s.io kinds beyond required fields, with the reference's texts. */
import type { KubeObject } from '../../api/objects';
import type { FieldError, WriteContext } from '../registry/types';
import {
  deepEqual,
  duplicate,
  FieldPath,
  forbidden,
  GoValue,
  immutable,
  invalid,
  notSupported,
  required,
  tooLong,
} from '../status/field-errors';
import { goLen, inclusiveRangeError, isDNS1123Subdomain, isQualifiedName } from './names';
import { immutableAs, LABEL_SELECTOR_POINTER } from './semantic-equality';
import { internalCompactJson } from './internal-json';
import { validateCSIDriverName } from './volume-sources';
import { validateInlinePersistentVolumeSpec } from './persistent-volume';
import { hasInvalidLabelValue, validateLabelSelector, type LabelSelectorShape } from './object-meta';
import { validateNonnegativeQuantity } from './resource-requirements';

/** What an attachment's metadata may hold in all, keys and values (the reference's 256 KiB). */
const MAX_ATTACHMENT_METADATA_SIZE = 256 * 1024;
/** The longest message an attach or detach error may carry. */
const MAX_VOLUME_ERROR_MESSAGE_SIZE = 1024;
const INT32_MAX = 2 ** 31 - 1;

interface VolumeError {
  message?: string;
  errorCode?: number;
}

/** The reference reports a message too long with the metadata's limit, not the message's. */
function volumeErrorErrors(error: VolumeError | undefined | null, path: FieldPath): FieldError[] {
  if (error == null) return [];
  const errors: FieldError[] = [];
  if (Buffer.byteLength(error.message ?? '') > MAX_VOLUME_ERROR_MESSAGE_SIZE)
    errors.push(tooLong(path.child('message'), MAX_ATTACHMENT_METADATA_SIZE));
  if (error.errorCode != null && error.errorCode < 0)
    errors.push(invalid(path.child('errorCode'), error.errorCode, inclusiveRangeError(0, INT32_MAX)));
  return errors;
}

/** What the attacher reported: its metadata within bounds, its errors' messages short. */
function volumeAttachmentStatusErrors(object: KubeObject): FieldError[] {
  const status = (object.status ?? {}) as {
    attachmentMetadata?: Record<string, string> | null;
    attachError?: VolumeError | null;
    detachError?: VolumeError | null;
  };
  const path = FieldPath.root('status');
  const errors: FieldError[] = [];
  const size = Object.entries(status.attachmentMetadata ?? {}).reduce(
    (sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value),
    0,
  );
  if (size > MAX_ATTACHMENT_METADATA_SIZE)
    errors.push(tooLong(path.child('attachmentMetadata'), MAX_ATTACHMENT_METADATA_SIZE));
  errors.push(...volumeErrorErrors(status.attachError, path.child('attachError')));
  errors.push(...volumeErrorErrors(status.detachError, path.child('detachError')));
  return errors;
}

/**
 * A VolumeAttachment names its attacher and exactly one source, an inline volume judged as a
 * PersistentVolume's spec in that context; its status is judged too.
 */
type VolumeAttachmentSpec = {
  attacher?: string;
  nodeName?: string;
  source?: { persistentVolumeName?: string | null; inlineVolumeSpec?: Record<string, unknown> | null };
};

export function validateVolumeAttachment(object: KubeObject): FieldError[] {
  const spec = (object.spec ?? {}) as VolumeAttachmentSpec;
  const errors: FieldError[] = [];
  const specPath = FieldPath.root('spec');
  if (!spec.attacher) errors.push(required(specPath.child('attacher')));
  const sourcePath = specPath.child('source');
  const exactlyOne = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
  const { persistentVolumeName, inlineVolumeSpec } = spec.source ?? {};
  if (inlineVolumeSpec == null && persistentVolumeName == null) errors.push(required(sourcePath, exactlyOne));
  else if (inlineVolumeSpec != null && persistentVolumeName != null) errors.push(forbidden(sourcePath, exactlyOne));
  else if (persistentVolumeName != null) {
    if (persistentVolumeName === '')
      errors.push(required(sourcePath.child('persistentVolumeName'), 'must specify non empty persistentVolumeName'));
  } else
    errors.push(...validateInlinePersistentVolumeSpec(inlineVolumeSpec ?? {}, sourcePath.child('inlineVolumeSpec')));
  const nodeName = spec.nodeName ?? '';
  for (const message of isDNS1123Subdomain(nodeName))
    errors.push(invalid(specPath.child('nodeName'), nodeName, message));
  return [...errors, ...volumeAttachmentStatusErrors(object)];
}

/**
 * A new attachment's tighter rules, after the others (the reference's ValidateVolumeAttachmentV1,
 * on create only): the attacher is a CSI driver's name, the volume a PersistentVolume's.
 */
export function validateNewVolumeAttachment(object: KubeObject): FieldError[] {
  const spec = (object.spec ?? {}) as VolumeAttachmentSpec;
  const errors = [
    ...validateVolumeAttachment(object),
    ...validateCSIDriverName(spec.attacher ?? '', FieldPath.root('spec', 'attacher')),
  ];
  const volume = spec.source?.persistentVolumeName;
  if (typeof volume === 'string')
    for (const message of isDNS1123Subdomain(volume))
      errors.push(invalid(FieldPath.root('spec', 'source', 'persistentVolumeName'), volume, message));
  return errors;
}

/** A provisioner or driver name: required, a qualified name in any case. */
function provisionerErrors(value: unknown, path: FieldPath): FieldError[] {
  const name = typeof value === 'string' ? value.toLowerCase() : '';
  if (name === '') return [required(path)];
  return isQualifiedName(name).map((message) => invalid(path, name, message));
}

/** What a class may hand its provisioner or driver: this many parameters, of this many bytes in all. */
const MAX_CLASS_PARAMETERS = 512;
const MAX_CLASS_PARAMETER_BYTES = 256 * 1024;

/** A class's parameters: bounded in number and size, no empty key; `allowEmpty` or at least one. */
function classParameterErrors(parameters: unknown, allowEmpty: boolean): FieldError[] {
  const path = FieldPath.root('parameters');
  const entries = Object.entries((parameters ?? {}) as Record<string, string>);
  if (entries.length > MAX_CLASS_PARAMETERS) return [tooLong(path, MAX_CLASS_PARAMETERS)];
  const errors: FieldError[] = [];
  let bytes = 0;
  for (const [key, value] of entries) {
    if (key === '') errors.push(invalid(path, key, 'field can not be empty.'));
    bytes += goLen(key) + (typeof value === 'string' ? goLen(value) : 0);
  }
  if (bytes > MAX_CLASS_PARAMETER_BYTES) errors.push(tooLong(path, MAX_CLASS_PARAMETER_BYTES));
  if (!allowEmpty && entries.length === 0) errors.push(required(path, 'must contain at least one key/value pair'));
  return errors;
}

/** A VolumeAttributesClass names its driver and carries at least one parameter. */
export function validateVolumeAttributesClass(object: KubeObject): FieldError[] {
  return [
    ...provisionerErrors(object.driverName, FieldPath.root('driverName')),
    ...classParameterErrors(object.parameters, false),
  ];
}

/**
 * A CSIStorageCapacity's node topology is a label selector (with the invalid label values an
 * update finds already stored), its storage class name a DNS subdomain, its capacity not
 * negative. The maximum volume size is the driver's to judge.
 */
export function validateCSIStorageCapacity(object: KubeObject, old?: KubeObject): FieldError[] {
  const topology = object.nodeTopology as LabelSelectorShape | undefined;
  const errors = validateLabelSelector(topology ?? undefined, FieldPath.root('nodeTopology'), {
    allowInvalidLabelValues:
      old !== undefined && hasInvalidLabelValue(old.nodeTopology as LabelSelectorShape | undefined),
  });
  const name = typeof object.storageClassName === 'string' ? object.storageClassName : '';
  errors.push(...isDNS1123Subdomain(name).map((message) => invalid(FieldPath.root('storageClassName'), name, message)));
  if (object.capacity != null) errors.push(...validateNonnegativeQuantity(object.capacity, FieldPath.root('capacity')));
  return errors;
}

interface TopologyTerm {
  matchLabelExpressions?: { key?: string; values?: string[] }[];
}

/** One term's expressions as key → sorted values, and their errors. */
function topologyTermErrors(
  term: TopologyTerm,
  path: FieldPath,
): { expressions: Record<string, string[]>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const expressions: Record<string, string[]> = {};
  (term.matchLabelExpressions ?? []).forEach((expression, i) => {
    const at = path.child('matchLabelExpressions').index(i);
    const key = expression.key ?? '';
    const values = expression.values ?? [];
    if (values.length === 0) errors.push(required(at.child('values')));
    values.forEach((value, j) => {
      if (values.indexOf(value) !== j) errors.push(duplicate(at.child('values').index(j), value));
    });
    for (const message of isQualifiedName(key)) errors.push(invalid(at.child('key'), key, message));
    if (key in expressions) errors.push(duplicate(at.child('key'), key));
    expressions[key] = [...new Set(values)].sort();
  });
  return { expressions, errors };
}

/**
 * A StorageClass names its provisioner; its allowed topology terms differ from each other.
 * The reference compares each term with as many empty ones as there are terms besides those
 * before it, so a term without expressions is always reported as a duplicate.
 */
export function validateStorageClass(object: KubeObject): FieldError[] {
  const errors = provisionerErrors(object.provisioner, FieldPath.root('provisioner'));
  errors.push(...classParameterErrors(object.parameters, true), ...classPolicyErrors(object));
  const terms = (object.allowedTopologies as TopologyTerm[] | undefined) ?? [];
  const seen: Record<string, string[]>[] = terms.map(() => ({}));
  terms.forEach((term, i) => {
    const at = FieldPath.root('allowedTopologies').index(i);
    const { expressions, errors: termErrors } = topologyTermErrors(term, at);
    errors.push(...termErrors);
    for (const earlier of seen)
      if (deepEqual(earlier, expressions)) errors.push(duplicate(at.child('matchLabelExpressions'), ''));
    seen.push(expressions);
  });
  return errors;
}

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const VOLUME_BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

/**
 * Both are pointers in Go, defaulted only when left out: an empty reclaim policy is let through
 * (the reference checks only a non-empty one), an empty binding mode is refused.
 */
function classPolicyErrors(storageClass: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const reclaimPolicy = storageClass.reclaimPolicy;
  if (typeof reclaimPolicy === 'string' && reclaimPolicy !== '' && !RECLAIM_POLICIES.includes(reclaimPolicy))
    errors.push(notSupported(FieldPath.root('reclaimPolicy'), reclaimPolicy, RECLAIM_POLICIES));
  const bindingMode = storageClass.volumeBindingMode;
  if (bindingMode === undefined || bindingMode === null) errors.push(required(FieldPath.root('volumeBindingMode')));
  else if (typeof bindingMode !== 'string' || !VOLUME_BINDING_MODES.includes(bindingMode))
    errors.push(notSupported(FieldPath.root('volumeBindingMode'), bindingMode, VOLUME_BINDING_MODES));
  return errors;
}

/**
 * What a StorageClass's provisioner was set up with stays: parameters, provisioner and
 * reclaim policy are forbidden to change, the binding mode is immutable (the reference's two
 * wordings). Parameters compare as Go's DeepEqual does: none differs from an empty map.
 */
export function validateStorageClassUpdate(storageClass: KubeObject, old: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['parameters', 'provisioner', 'reclaimPolicy']) {
    if (!deepEqual(storageClass[field] ?? null, old[field] ?? null))
      errors.push(forbidden(FieldPath.root(field), `updates to ${field} are forbidden.`));
  }
  errors.push(
    ...immutable(
      FieldPath.root('volumeBindingMode'),
      storageClass.volumeBindingMode ?? null,
      old.volumeBindingMode ?? null,
    ),
  );
  return errors;
}

/** The longer node ID limit a 1.34 server allows. */
const CSI_NODE_ID_MAX = 256;

interface CSINodeDriver {
  name?: string;
  nodeID?: string;
  allocatable?: { count?: number };
  topologyKeys?: string[] | null;
}

/** A CSINode's drivers: a driver name, a node ID, qualified topology keys, each driver once. */
export function validateCSINode(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  ((object.spec as { drivers?: CSINodeDriver[] } | undefined)?.drivers ?? []).forEach((driver, i) => {
    const at = FieldPath.root('spec', 'drivers').index(i);
    const name = driver.name ?? '';
    errors.push(...validateCSIDriverName(name, at.child('name')));
    const nodeID = driver.nodeID ?? '';
    if (nodeID === '') errors.push(required(at.child('nodeID')));
    if (nodeID.length > CSI_NODE_ID_MAX)
      errors.push(invalid(at.child('nodeID'), nodeID, `must be ${CSI_NODE_ID_MAX} characters or less`));
    const count = driver.allocatable?.count;
    if (count !== undefined && count < 0)
      errors.push(invalid(at.child('allocatable', 'count'), count, 'must be greater than or equal to 0'));
    if (names.has(name)) errors.push(duplicate(at.child('name'), name));
    names.add(name);
    const keys = new Set<string>();
    for (const key of driver.topologyKeys ?? []) {
      if (key === '') errors.push(required(at));
      if (keys.has(key)) errors.push(duplicate(at, key));
      keys.add(key);
      for (const message of isQualifiedName(key)) errors.push(invalid(at, key, message));
    }
  });
  return errors;
}

/** A VolumeAttributesClass's driver and parameters are fixed once made (the reference's 422). */
export function validateVolumeAttributesClassUpdate(object: KubeObject, old: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['driverName', 'parameters']) {
    if (!deepEqual(object[field] ?? null, old[field] ?? null))
      errors.push(forbidden(FieldPath.root(field), `updates to ${field} are forbidden.`));
  }
  return errors;
}

interface CSIDriverSpec {
  attachRequired?: boolean;
  podInfoOnMount?: boolean;
  storageCapacity?: boolean;
  fsGroupPolicy?: string;
  tokenRequests?: { audience?: string; expirationSeconds?: number }[];
  volumeLifecycleModes?: string[];
  seLinuxMount?: boolean;
  nodeAllocatableUpdatePeriodSeconds?: number;
}

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const VOLUME_LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MIN_TOKEN_SECONDS = 10 * 60;
const MAX_TOKEN_SECONDS = 2 ** 32;
const MIN_NODE_ALLOCATABLE_UPDATE_PERIOD_SECONDS = 10;

function csiDriverSpecOf(driver: KubeObject): CSIDriverSpec {
  return (driver.spec ?? {}) as CSIDriverSpec;
}

/**
 * A CSIDriver's spec, as the reference's validateCSIDriverSpec: the switches defaulting fills
 * are required (seLinuxMount only while SELinuxMountReadWriteOncePod defaults it), each token
 * audience once, and a node's allocatable count refreshed no oftener than every 10 seconds.
 */
export function validateCSIDriver(driver: KubeObject, context: WriteContext): FieldError[] {
  const spec = csiDriverSpecOf(driver);
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  const requireSet = (value: unknown, at: FieldPath) => {
    if (value === undefined || value === null) errors.push(required(at));
  };
  // The reference's path for attachRequired is spelled `attachedRequired`.
  requireSet(spec.attachRequired, path.child('attachedRequired'));
  requireSet(spec.podInfoOnMount, path.child('podInfoOnMount'));
  requireSet(spec.storageCapacity, path.child('storageCapacity'));
  if (typeof spec.fsGroupPolicy === 'string' && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy))
    errors.push(notSupported(path.child('fsGroupPolicy'), spec.fsGroupPolicy, FS_GROUP_POLICIES));
  const audiences = new Set<string>();
  (spec.tokenRequests ?? []).forEach((request, i) => {
    const at = path.child('tokenRequests').index(i);
    const audience = request.audience ?? '';
    if (audiences.has(audience)) {
      errors.push(duplicate(at.child('audience'), audience));
      return;
    }
    audiences.add(audience);
    const seconds = request.expirationSeconds;
    if (typeof seconds !== 'number') return;
    if (seconds < MIN_TOKEN_SECONDS)
      errors.push(invalid(at.child('expirationSeconds'), seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > MAX_TOKEN_SECONDS)
      errors.push(
        invalid(at.child('expirationSeconds'), seconds, 'may not specify a duration larger than 2^32 seconds'),
      );
  });
  for (const mode of spec.volumeLifecycleModes ?? [])
    if (!VOLUME_LIFECYCLE_MODES.includes(mode))
      errors.push(notSupported(path.child('volumeLifecycleModes'), mode, VOLUME_LIFECYCLE_MODES));
  if (context.featureEnabled('SELinuxMountReadWriteOncePod')) requireSet(spec.seLinuxMount, path.child('seLinuxMount'));
  const period = spec.nodeAllocatableUpdatePeriodSeconds;
  if (typeof period === 'number' && period < MIN_NODE_ALLOCATABLE_UPDATE_PERIOD_SECONDS)
    errors.push(
      invalid(path.child('nodeAllocatableUpdatePeriodSeconds'), period, 'must be greater than or equal to 10 seconds'),
    );
  return errors;
}

/** What a CSIDriver tells kubelet about attaching and volume modes is fixed once made. */
export function validateCSIDriverUpdate(driver: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  const [next, before] = [csiDriverSpecOf(driver), csiDriverSpecOf(old)];
  return [
    ...validateCSIDriver(driver, context),
    ...immutable(
      FieldPath.root('spec', 'attachedRequired'),
      next.attachRequired ?? null,
      before.attachRequired ?? null,
    ),
    ...immutable(
      FieldPath.root('spec', 'volumeLifecycleModes'),
      next.volumeLifecycleModes ?? null,
      before.volumeLifecycleModes ?? null,
    ),
  ];
}

/** A driver as Go prints the internal struct in a field error: JSON with Go's field names, in its order. */
function goCSINodeDriver(driver: CSINodeDriver): GoValue {
  const { name = '', nodeID = '', topologyKeys = null, allocatable } = driver;
  return new GoValue(
    JSON.stringify({
      Name: name,
      NodeID: nodeID,
      TopologyKeys: topologyKeys,
      Allocatable: allocatable === undefined ? null : { Count: allocatable.count ?? null },
    }),
  );
}

/**
 * A CSINode's drivers keep what they registered: one with the same name may not change, but for
 * its allocatable count while MutableCSINodeAllocatableCount lets kubelet refresh it.
 */
export function validateCSINodeUpdate(node: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  const driversOf = (object: KubeObject) => (object.spec as { drivers?: CSINodeDriver[] } | undefined)?.drivers ?? [];
  const compared: (driver: CSINodeDriver) => CSINodeDriver = context.featureEnabled('MutableCSINodeAllocatableCount')
    ? ({ allocatable: _allocatable, ...rest }) => rest
    : (driver) => driver;
  const errors: FieldError[] = [];
  for (const before of driversOf(old))
    for (const driver of driversOf(node))
      if (driver.name === before.name) {
        const next = compared(driver);
        errors.push(
          ...immutableAs(
            'storage.CSINodeDriver',
            FieldPath.root('spec', 'drivers'),
            next,
            compared(before),
            goCSINodeDriver(next),
          ),
        );
      }
  return errors;
}

/** A VolumeAttachment's spec is read-only once made: the attacher acts on it. */
export function validateVolumeAttachmentUpdate(attachment: KubeObject, old: KubeObject): FieldError[] {
  // Shown as the internal struct marshals (Go field names, nil members null).
  return immutableAs(
    'storage.VolumeAttachmentSpec',
    FieldPath.root('spec'),
    attachment.spec,
    old.spec,
    new GoValue(internalCompactJson('storage.VolumeAttachmentSpec', attachment.spec)),
  );
}

/** What a CSIStorageCapacity was asked for (topology and class) is fixed; only the answer changes. */
export function validateCSIStorageCapacityUpdate(capacity: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...immutableAs(LABEL_SELECTOR_POINTER, FieldPath.root('nodeTopology'), capacity.nodeTopology, old.nodeTopology),
    ...immutable(FieldPath.root('storageClassName'), capacity.storageClassName ?? '', old.storageClassName ?? ''),
  ];
}
