/**
 * A PersistentVolumeClaim's update, as the reference validates it (1.34: retroactive default
 * class and recovery from expansion failure on): its spec is fixed once made, except that an
 * unbound claim may be given its volume and a class where it had none, and a bound claim may ask
 * for another size (never below what its status records) or attributes class. Whether it may grow
 * is PersistentVolumeClaimResize's call.
 */
import type { KubeObject } from '../../api/objects';
import { parseQuantity } from '../quantity/quantity';
import type { FieldError } from '../status/field-error';
import { validateClaimSpecOver } from './core';
import { FieldPath, forbidden, immutable } from '../status/field-errors';
import { internalDiff } from './internal-json';
import { semanticEqual } from './semantic-equality';

const LEGACY_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

type Fields = Record<string, unknown>;
const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};

const storageOf = (requests: unknown) => {
  const text = record(requests).storage;
  return typeof text === 'string' ? parseQuantity(text) : undefined;
};

/**
 * A claim's create rules as its update runs them, twice (the reference's strategy validates the
 * claim before its update, which does again), with what the stored claim allows.
 */
export function validatePersistentVolumeClaimOnUpdate(claim: KubeObject, old: KubeObject): FieldError[] {
  return validateClaimSpecOver(claim, old);
}

export function validatePersistentVolumeClaimUpdate(claim: KubeObject, old: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec: Fields = { ...record(claim.spec) };
  const oldSpec: Fields = { ...record(old.spec) };
  const annotations = claim.metadata.annotations ?? {};
  const oldAnnotations = old.metadata.annotations ?? {};
  const bound = record(claim.status).phase === 'Bound';

  // An unbound claim gets its volume.
  if (!oldSpec.volumeName) oldSpec.volumeName = spec.volumeName;
  const oldAnnotated = oldAnnotations[LEGACY_STORAGE_CLASS];
  const upgradedFromAnnotation =
    oldAnnotated !== undefined &&
    (annotations[LEGACY_STORAGE_CLASS] === undefined || annotations[LEGACY_STORAGE_CLASS] === oldAnnotated) &&
    oldSpec.storageClassName == null &&
    spec.storageClassName === oldAnnotated;
  if (upgradedFromAnnotation) {
    delete spec.storageClassName;
  } else {
    errors.push(
      ...immutable(
        FieldPath.root('metadata').child('annotations').key(LEGACY_STORAGE_CLASS),
        annotations[LEGACY_STORAGE_CLASS] ?? '',
        oldAnnotated ?? '',
      ),
    );
    // A claim made before any default class existed may be given one.
    if (oldAnnotated === undefined && oldSpec.storageClassName == null && spec.storageClassName != null)
      oldSpec.storageClassName = spec.storageClassName;
  }
  if (bound) {
    const resources = record(spec.resources);
    if (resources.requests !== undefined)
      spec.resources = {
        ...resources,
        requests: { ...record(resources.requests), storage: record(record(oldSpec.resources).requests).storage },
      };
    spec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  }
  if (!semanticEqual('core.PersistentVolumeClaimSpec', spec, oldSpec)) {
    errors.push(
      forbidden(
        FieldPath.root('spec'),
        `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${internalDiff('core.PersistentVolumeClaimSpec', oldSpec, spec)}`,
      ),
    );
  }
  const size = storageOf(record(record(claim.spec).resources).requests);
  const oldSize = storageOf(record(record(old.spec).resources).requests);
  const recorded = storageOf(record(old.status).capacity) ?? parseQuantity('0')!;
  if (size !== undefined && oldSize !== undefined && size.compareTo(oldSize) < 0 && size.compareTo(recorded) <= 0) {
    errors.push(
      forbidden(
        FieldPath.root('spec', 'resources', 'requests', 'storage'),
        'field can not be less than status.capacity',
      ),
    );
  }
  errors.push(...immutable(FieldPath.root('volumeMode'), record(claim.spec).volumeMode, record(old.spec).volumeMode));
  return errors;
}
