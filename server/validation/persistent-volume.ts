/**
 * A PersistentVolume's spec, as the reference's ValidatePersistentVolumeSpec checks it for a
 * volume and for a VolumeAttachment's inline volume, and its update (ValidatePersistentVolumeUpdate).
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, immutable, invalid, required } from '../status/field-errors';
import { hasInvalidLabelValueInNodeSelectorTerms, validateNodeSelector, type NodeSelector } from './node-selector';
import { isDNS1123Subdomain } from './names';
import { accessModeErrors } from './claim-spec';
import { internalDiff } from './internal-json';
import { memberType, semanticEqual } from './semantic-equality';
import { validateCSIPersistentVolumeSource } from './volume-sources';

type Json = Record<string, unknown>;

function field<T>(object: KubeObject, name: string): T | undefined {
  return object[name] as T | undefined;
}

export function validatePersistentVolume(volume: KubeObject): FieldError[] {
  return validatePersistentVolumeSpec(field<Json>(volume, 'spec') ?? {}, FieldPath.root('spec'), { inline: false });
}

/**
 * A volume's create rules as its update runs them, twice (ValidatePersistentVolume before the
 * update's rules, then again in them), with what the stored volume allows.
 */
export function validatePersistentVolumeOnUpdate(volume: KubeObject, old: KubeObject): FieldError[] {
  return validatePersistentVolumeSpec(field<Json>(volume, 'spec') ?? {}, FieldPath.root('spec'), {
    inline: false,
    old: field<Json>(old, 'spec'),
  });
}

/**
 * A VolumeAttachment's inline volume: the spec of a CSI volume a pod names directly, which has
 * no claim to bind, no capacity, class or node affinity of its own, is never reclaimed but
 * retained, and is mounted as a file system.
 */
export function validateInlinePersistentVolumeSpec(spec: Json, path: FieldPath): FieldError[] {
  return validatePersistentVolumeSpec(spec, path, { inline: true });
}

const INLINE_CONTEXT = 'in the context of inline volumes';

/** What an inline volume may not have, each in the reference's place among the spec's rules. */
function inlineVolumeErrors(
  spec: Json,
  specPath: FieldPath,
  at: 'first' | 'reclaim' | 'affinity' | 'last',
): FieldError[] {
  const errors: FieldError[] = [];
  const notHere = (member: string) => forbidden(specPath.child(member), `may not be specified ${INLINE_CONTEXT}`);
  if (at === 'first') {
    if (spec.claimRef != null) errors.push(notHere('claimRef'));
    if (spec.capacity != null && Object.keys(spec.capacity as object).length > 0) errors.push(notHere('capacity'));
    if (spec.csi == null) errors.push(required(specPath.child('csi'), `has to be specified ${INLINE_CONTEXT}`));
  } else if (at === 'reclaim') {
    const policy = spec.persistentVolumeReclaimPolicy;
    if (typeof policy === 'string' && policy !== '' && policy !== 'Retain')
      errors.push(forbidden(specPath.child('persistentVolumeReclaimPolicy'), `may only be Retain ${INLINE_CONTEXT}`));
  } else if (at === 'affinity') {
    if (spec.nodeAffinity != null) errors.push(notHere('nodeAffinity'));
  } else {
    if (typeof spec.storageClassName === 'string' && spec.storageClassName !== '')
      errors.push(notHere('storageClassName'));
    if (spec.volumeMode != null && spec.volumeMode !== 'Filesystem')
      errors.push(
        forbidden(specPath.child('volumeMode'), `may not specify volumeMode other than Filesystem ${INLINE_CONTEXT}`),
      );
  }
  return errors;
}

/**
 * A PersistentVolume's spec, or a VolumeAttachment's inline one (`inline`), in the reference's
 * order (ValidatePersistentVolumeSpec). `old`: the stored spec on an update, whose invalid node
 * affinity label values are spared.
 */
function validatePersistentVolumeSpec(
  spec: Json,
  specPath: FieldPath,
  { inline, old }: { readonly inline: boolean; readonly old?: Json },
): FieldError[] {
  const errors: FieldError[] = [];
  if (inline) errors.push(...inlineVolumeErrors(spec, specPath, 'first'));
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0)
    errors.push(required(specPath.child('accessModes')));
  else errors.push(...accessModeErrors(spec.accessModes as string[], specPath.child('accessModes')));
  const capacity = spec.capacity as Record<string, string> | undefined;
  if (!inline && capacity?.storage === undefined) errors.push(required(specPath.child('capacity').key('storage')));
  if (inline) errors.push(...inlineVolumeErrors(spec, specPath, 'reclaim'));
  const nodeAffinity = spec.nodeAffinity as VolumeNodeAffinity | null | undefined;
  if (inline) errors.push(...inlineVolumeErrors(spec, specPath, 'affinity'));
  else if (nodeAffinity != null) {
    const stored = old?.nodeAffinity as VolumeNodeAffinity | null | undefined;
    errors.push(
      ...validateVolumeNodeAffinity(nodeAffinity, specPath.child('nodeAffinity'), {
        allowInvalidLabelValues: hasInvalidLabelValueInNodeSelectorTerms(stored?.required?.nodeSelectorTerms),
      }),
    );
  }
  errors.push(...volumeSourceErrors(spec, specPath, nodeAffinity != null));
  // A VolumeAttachment validates its inline volume with no options: EnableVolumeAttributesClass off.
  if (inline) errors.push(...inlineVolumeErrors(spec, specPath, 'last'));
  else errors.push(...volumeAttributesClassErrors(spec, specPath));
  return errors;
}

interface VolumeNodeAffinity {
  required?: NodeSelector | null;
}

/** Where a volume can be reached from: a node selector, required. */
function validateVolumeNodeAffinity(
  affinity: VolumeNodeAffinity,
  path: FieldPath,
  { allowInvalidLabelValues }: { readonly allowInvalidLabelValues: boolean },
): FieldError[] {
  if (affinity.required == null) return [required(path.child('required'), 'must specify required node constraints')];
  return validateNodeSelector(affinity.required, allowInvalidLabelValues, path.child('required'));
}

/** A volume attributes class is a class name, and only CSI volumes have attributes to modify. */
function volumeAttributesClassErrors(spec: Json, specPath: FieldPath): FieldError[] {
  const className = spec.volumeAttributesClassName;
  if (typeof className !== 'string') return [];
  const errors: FieldError[] = [];
  const path = specPath.child('volumeAttributesClassName');
  if (className === '') errors.push(required(path, 'an empty string is disallowed'));
  else for (const message of isDNS1123Subdomain(className)) errors.push(invalid(path, className, message));
  if (spec.csi == null)
    errors.push(required(specPath.child('csi'), 'has to be specified when using volumeAttributesClassName'));
  return errors;
}

/** The well-known node labels whose beta keys a volume's node affinity may be moved to the GA keys of. */
const GA_LABEL_OF_BETA: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
  'beta.kubernetes.io/os': 'kubernetes.io/os',
  'beta.kubernetes.io/arch': 'kubernetes.io/arch',
  'beta.kubernetes.io/instance-type': 'node.kubernetes.io/instance-type',
};

interface NodeSelectorTermShape {
  matchExpressions?: Json[];
  matchFields?: Json[];
}

/**
 * `old` node affinity with each requirement's beta label key read as the GA key that `next`
 * has in its place, so that comparing the two allows exactly that change, as the reference's
 * masked equality does.
 */
function withGALabelKeysOf(old: Json, next: Json | undefined): Json {
  const terms = (affinity: Json | undefined) =>
    ((affinity?.required as Json | undefined)?.nodeSelectorTerms as NodeSelectorTermShape[] | undefined) ?? [];
  const nextTerms = terms(next);
  const masked = (requirements: Json[] | undefined, nextRequirements: Json[] | undefined) =>
    requirements?.map((requirement, i) => {
      const nextKey = nextRequirements?.[i]?.key;
      return typeof requirement.key === 'string' && GA_LABEL_OF_BETA[requirement.key] === nextKey
        ? { ...requirement, key: nextKey }
        : requirement;
    });
  const required = old.required as Json | undefined;
  if (required === undefined) return old;
  return {
    ...old,
    required: {
      ...required,
      nodeSelectorTerms: terms(old).map((term, i) => ({
        ...term,
        ...(term.matchExpressions
          ? { matchExpressions: masked(term.matchExpressions, nextTerms[i]?.matchExpressions) }
          : {}),
        ...(term.matchFields ? { matchFields: masked(term.matchFields, nextTerms[i]?.matchFields) } : {}),
      })),
    },
  };
}

/**
 * A PersistentVolume's source and volume mode are fixed once made (a CSI source may still be
 * given the controller-expand secret it lacked); the reference appends a Go diff of the two
 * sources to the first message, which is not reproduced. Its node affinity is fixed once set
 * (but for beta label keys moving to GA), and its volume attributes class cannot be removed.
 */
export function validatePersistentVolumeUpdate(volume: KubeObject, old: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = field<Json>(volume, 'spec') ?? {};
  const oldSpec = field<Json>(old, 'spec') ?? {};
  const sourceOf = (of: Json, expandSecretFrom: Json) => {
    const source: Json = {};
    for (const [member] of PERSISTENT_VOLUME_SOURCES) if (of[member] != null) source[member] = of[member];
    const csi = source.csi as Json | undefined;
    const oldCsi = expandSecretFrom.csi as Json | undefined;
    if (csi !== undefined && oldCsi != null && oldCsi.controllerExpandSecretRef == null) {
      const { controllerExpandSecretRef: _added, ...rest } = csi;
      source.csi = rest;
    }
    return source;
  };
  const [source, oldSource] = [sourceOf(spec, oldSpec), sourceOf(oldSpec, oldSpec)];
  if (!semanticEqual('core.PersistentVolumeSource', source, oldSource))
    errors.push(
      forbidden(
        FieldPath.root('spec', 'persistentvolumesource'),
        `spec.persistentvolumesource is immutable after creation\n${internalDiff('core.PersistentVolumeSource', oldSource, source)}`,
      ),
    );
  errors.push(...immutable(FieldPath.root('volumeMode'), spec.volumeMode ?? null, oldSpec.volumeMode ?? null));
  // A node affinity may be set where there was none; once set, only beta label keys may move to GA.
  const oldAffinity = oldSpec.nodeAffinity as Json | undefined;
  const affinity = spec.nodeAffinity as Json | undefined;
  if (
    oldAffinity != null &&
    !semanticEqual(
      memberType('core.PersistentVolumeSpec', 'nodeAffinity'),
      affinity,
      withGALabelKeysOf(oldAffinity, affinity),
    )
  )
    errors.push(
      invalid(
        FieldPath.root('nodeAffinity'),
        affinity ?? null,
        'field is immutable, except for updating from beta label to GA',
      ),
    );
  if (oldSpec.volumeAttributesClassName != null && spec.volumeAttributesClassName == null)
    errors.push(
      forbidden(FieldPath.root('spec', 'volumeAttributesClassName'), 'update from non-nil value to nil is forbidden'),
    );
  return errors;
}

/**
 * A volume's sources in the order the reference counts them: its member name and the name its
 * errors give the path (`cephfs` is `cephFS` there). A flex volume counts without being refused.
 */
const PERSISTENT_VOLUME_SOURCES: readonly (readonly [string, string])[] = [
  ['hostPath', 'hostPath'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['nfs', 'nfs'],
  ['rbd', 'rbd'],
  ['quobyte', 'quobyte'],
  ['cephfs', 'cephFS'],
  ['iscsi', 'iscsi'],
  ['cinder', 'cinder'],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['scaleIO', 'scaleIO'],
  ['local', 'local'],
  ['storageos', 'storageos'],
  ['csi', 'csi'],
];

/**
 * Exactly one volume source: every one after the first is refused by its name. A local volume
 * lives on one node, so it needs the node affinity that says which. Of the sources' contents,
 * only a CSI source's is checked so far.
 */
function volumeSourceErrors(spec: Json, specPath: FieldPath, hasNodeAffinity: boolean): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const [member, pathName] of PERSISTENT_VOLUME_SOURCES) {
    if (spec[member] === undefined) continue;
    if (count > 0 && member !== 'flexVolume')
      errors.push(forbidden(specPath.child(pathName), 'may not specify more than 1 volume type'));
    else {
      count++;
      if (member === 'local' && !hasNodeAffinity)
        errors.push(required(specPath.child('nodeAffinity'), 'Local volume requires node affinity'));
      if (member === 'csi' && spec.csi !== null)
        errors.push(...validateCSIPersistentVolumeSource(spec.csi as Json, specPath.child(pathName)));
    }
  }
  if (count === 0) errors.push(required(specPath, 'must specify a volume type'));
  return errors;
}
