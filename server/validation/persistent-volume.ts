/**
 * A PersistentVolume's spec, as the reference's ValidatePersistentVolumeSpec checks it for a
 * volume and for a VolumeAttachment's inline volume, and its update (ValidatePersistentVolumeUpdate).
 */
import { posix } from 'node:path';
import type { KubeObject } from '../../api/objects';
import { canonicalQuantity, parseQuantity, Quantity, valueRoundedUp } from '../quantity/quantity';
import type { FieldError } from '../status/field-error';
import {
  FieldPath,
  forbidden,
  GoValue,
  immutable,
  invalid,
  jsonStringMap,
  notSupported,
  required,
} from '../status/field-errors';
import { hasInvalidLabelValueInNodeSelectorTerms, validateNodeSelector, type NodeSelector } from './node-selector';
import { isDNS1123Subdomain } from './names';
import { accessModeErrors, classNameErrors, volumeModeErrors } from './claim-spec';
import { internalDiff } from './internal-json';
import { memberType, semanticEqual } from './semantic-equality';
import {
  mountOptionsAnnotationErrors,
  PERSISTENT_VOLUME_SOURCE_MEMBERS,
  persistentVolumeSourceErrors,
} from './persistent-volume-sources';

type Json = Record<string, unknown>;

function field<T>(object: KubeObject, name: string): T | undefined {
  return object[name] as T | undefined;
}

/** A volume's spec, then whether its source takes the mount options its annotation gives. */
export function validatePersistentVolume(volume: KubeObject): FieldError[] {
  return [...persistentVolumeSpecErrors(volume, undefined), ...mountOptionsAnnotationErrors(volume)];
}

/**
 * A volume's create rules as its update runs them first (the strategy's ValidatePersistentVolume
 * and the volume plugins' check), with what the stored volume allows.
 */
export function validatePersistentVolumeOnUpdate(volume: KubeObject, old: KubeObject): FieldError[] {
  return [...persistentVolumeSpecErrors(volume, old), ...mountOptionsAnnotationErrors(volume)];
}

/** A non-inline volume's spec, written over `old` (absent on create). */
function persistentVolumeSpecErrors(volume: KubeObject, old: KubeObject | undefined): FieldError[] {
  return validatePersistentVolumeSpec(field<Json>(volume, 'spec') ?? {}, FieldPath.root('spec'), {
    inline: false,
    name: volume.metadata.name ?? '',
    old: old === undefined ? undefined : field<Json>(old, 'spec'),
  });
}

/**
 * A VolumeAttachment's inline volume: the spec of a CSI volume a pod names directly, which has
 * no claim to bind, no capacity, class or node affinity of its own, is never reclaimed but
 * retained, and is mounted as a file system.
 */
export function validateInlinePersistentVolumeSpec(spec: Json, path: FieldPath): FieldError[] {
  return validatePersistentVolumeSpec(spec, path, { inline: true, name: '' });
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

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

/** A volume's capacity is its storage alone, a positive amount. */
function capacityErrors(capacity: Record<string, string> | null | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const amounts = Object.entries(capacity ?? {});
  if (amounts.length === 0) errors.push(required(path));
  if (capacity?.storage === undefined || amounts.length > 1) {
    const shown =
      capacity == null
        ? undefined
        : Object.fromEntries(amounts.map(([name, written]) => [name, canonicalQuantity(written) ?? written]));
    errors.push(notSupported(path, jsonStringMap(shown), ['storage']));
  }
  for (const [name, written] of amounts) {
    const amount = parseQuantity(written);
    if (amount === undefined) continue;
    const whole = valueRoundedUp(amount, 1n);
    if (whole < 0n)
      errors.push(invalid(path.key(name), new GoValue(String(whole)), 'must be a valid resource quantity'));
    if (amount.compareTo(new Quantity(0n)) <= 0)
      errors.push(invalid(path.key(name), canonicalQuantity(written) ?? written, 'must be greater than zero'));
  }
  return errors;
}

/** Recycling scrubs the volume's files: a host's whole file system may not be one. */
function recycleErrors(spec: Json, specPath: FieldPath): FieldError[] {
  const hostPath = spec.hostPath as Json | null | undefined;
  const path = typeof hostPath?.path === 'string' ? hostPath.path : '';
  return hostPath != null && posix.normalize(path) === '/' && spec.persistentVolumeReclaimPolicy === 'Recycle'
    ? [forbidden(specPath.child('persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'")]
    : [];
}

/**
 * A PersistentVolume's spec, or a VolumeAttachment's inline one (`inline`), in the reference's
 * order (ValidatePersistentVolumeSpec). `name`: the volume's (empty for an inline one), which an
 * iSCSI source's interface is named after. `old`: the stored spec on an update, whose invalid
 * node affinity label values are spared.
 */
function validatePersistentVolumeSpec(
  spec: Json,
  specPath: FieldPath,
  { inline, name, old }: { readonly inline: boolean; readonly name: string; readonly old?: Json },
): FieldError[] {
  const errors: FieldError[] = [];
  if (inline) errors.push(...inlineVolumeErrors(spec, specPath, 'first'));
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0)
    errors.push(required(specPath.child('accessModes')));
  else errors.push(...accessModeErrors(spec.accessModes as string[], specPath.child('accessModes')));
  if (!inline)
    errors.push(...capacityErrors(spec.capacity as Record<string, string> | null, specPath.child('capacity')));
  const policy = spec.persistentVolumeReclaimPolicy;
  if (inline) errors.push(...inlineVolumeErrors(spec, specPath, 'reclaim'));
  else if (typeof policy === 'string' && policy !== '' && !RECLAIM_POLICIES.includes(policy))
    errors.push(notSupported(specPath.child('persistentVolumeReclaimPolicy'), policy, RECLAIM_POLICIES));
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
  // An inline volume's node affinity is refused, so a local source still lacks one.
  errors.push(
    ...persistentVolumeSourceErrors(spec, specPath, {
      volumeName: name,
      hasNodeAffinity: !inline && nodeAffinity != null,
    }),
  );
  errors.push(...recycleErrors(spec, specPath));
  // A VolumeAttachment validates its inline volume with no options: EnableVolumeAttributesClass off.
  if (inline) errors.push(...inlineVolumeErrors(spec, specPath, 'last'));
  else
    errors.push(
      ...classNameErrors(spec.storageClassName as string | null | undefined, specPath.child('storageClassName')),
      ...volumeModeErrors(spec.volumeMode as string | null | undefined, specPath.child('volumeMode')),
      ...volumeAttributesClassErrors(spec, specPath),
    );
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

/** A status write keeps the stored spec, which the reference does not check again (ValidatePersistentVolumeStatusUpdate). */
export function validatePersistentVolumeStatusUpdate(): FieldError[] {
  return [];
}

/**
 * The reference's ValidatePersistentVolumeUpdate after its metadata: the spec's rules once more,
 * then what may not change. A volume's source and volume mode are fixed once made (a CSI source
 * may still be given the controller-expand secret it lacked; the message ends with the Go diff of
 * the two sources). Its node affinity is fixed once set (but for beta label keys moving to GA),
 * and its volume attributes class cannot be removed.
 */
export function validatePersistentVolumeUpdate(volume: KubeObject, old: KubeObject): FieldError[] {
  const errors = persistentVolumeSpecErrors(volume, old);
  const spec = field<Json>(volume, 'spec') ?? {};
  const oldSpec = field<Json>(old, 'spec') ?? {};
  const sourceOf = (of: Json, expandSecretFrom: Json) => {
    const source: Json = {};
    for (const member of PERSISTENT_VOLUME_SOURCE_MEMBERS) if (of[member] != null) source[member] = of[member];
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
