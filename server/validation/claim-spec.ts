/**
 * A claim's spec as the reference's ValidatePersistentVolumeClaimSpec checks it, wherever a spec
 * appears: in a PersistentVolumeClaim, a StatefulSet's claim templates and an ephemeral volume's
 * claim template. Its own module, as the pod's volume checks need it and core.ts needs those.
 */
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, GoValue, invalid, notSupported, required } from '../status/field-errors';
import { canonicalQuantity, parseQuantity } from '../quantity/quantity';
import { isDNS1123Label, isDNS1123Subdomain } from './names';
import { validateLabelSelector, validateTemplateObjectMeta, type LabelSelectorShape } from './object-meta';

export interface DataSourceReference {
  apiGroup?: string | null;
  kind?: string;
  name?: string;
  namespace?: string;
}

export interface ClaimSpec {
  accessModes?: string[];
  resources?: { requests?: Record<string, string> };
  storageClassName?: string | null;
  volumeAttributesClassName?: string | null;
  volumeMode?: string;
  selector?: LabelSelectorShape;
  dataSource?: DataSourceReference;
  dataSourceRef?: DataSourceReference;
}

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];

/**
 * How a claim's spec is checked. `anyApiGroup`: its data sources' API groups are not checked,
 * for an update of a claim whose stored sources named a group (set at all, even empty), as
 * the reference keeps such claims writable whatever group they hold. `anyLabelValues`: the
 * selector's expression values are not checked, for an update of a claim whose stored selector
 * already held values no label can have; otherwise they are, as for any new claim or template.
 */
export interface ClaimSpecOptions {
  readonly anyApiGroup?: boolean;
  readonly anyLabelValues?: boolean;
}

/** A claim's data source (or its newer form, which may name another namespace). */
function validateDataSource(source: DataSourceReference, path: FieldPath, options: ClaimSpecOptions): FieldError[] {
  const errors: FieldError[] = [];
  if (!source.name) errors.push(required(path.child('name')));
  if (!source.kind) errors.push(required(path.child('kind')));
  const apiGroup = source.apiGroup ?? '';
  if (apiGroup === '' && source.kind !== 'PersistentVolumeClaim') {
    errors.push(
      invalid(path, source.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"),
    );
  }
  if (apiGroup !== '' && !options.anyApiGroup)
    for (const message of isDNS1123Subdomain(apiGroup)) errors.push(invalid(path.child('apiGroup'), apiGroup, message));
  if (source.namespace)
    for (const message of isDNS1123Label(source.namespace))
      errors.push(invalid(path.child('namespace'), source.namespace, message));
  return errors;
}

/**
 * The old and the new form of a claim's source name the same thing, or the new one names another
 * namespace and stands alone. The reference shows the spec's field path as the value, which Go
 * prints as `{}`. An absent group and an empty one differ (Go compares the pointers' targets).
 */
function dataSourcesAgree(spec: ClaimSpec, specPath: FieldPath): FieldError[] {
  const { dataSource: source, dataSourceRef: ref } = spec;
  const shownPath = new GoValue('{}');
  if (ref?.namespace) {
    return source === undefined
      ? []
      : [invalid(specPath, shownPath, 'may not be specified when dataSourceRef.namespace is specified')];
  }
  if (source === undefined || ref === undefined) return [];
  const same =
    (source.apiGroup ?? null) === (ref.apiGroup ?? null) && source.kind === ref.kind && source.name === ref.name;
  return same ? [] : [invalid(specPath, shownPath, 'must match dataSourceRef')];
}

/** A claim's spec, also a StatefulSet's claim templates' and an ephemeral volume's. */
export function validatePersistentVolumeClaimSpec(
  claimSpec: ClaimSpec | undefined,
  specPath: FieldPath,
  options: ClaimSpecOptions = {},
): FieldError[] {
  const errors: FieldError[] = [];
  const spec = claimSpec ?? {};
  const modes = spec.accessModes ?? [];
  if (modes.length === 0) errors.push(required(specPath.child('accessModes'), 'at least 1 access mode is required'));
  errors.push(
    ...validateLabelSelector(spec.selector, specPath.child('selector'), {
      allowInvalidLabelValues: options.anyLabelValues ?? false,
    }),
  );
  errors.push(...accessModeErrors(modes, specPath.child('accessModes')));
  const storagePath = specPath.child('resources').key('storage');
  const storage = spec.resources?.requests?.storage;
  if (storage === undefined) errors.push(required(storagePath));
  else if (!((parseQuantity(storage)?.numerator ?? 0n) > 0n))
    errors.push(invalid(storagePath, canonicalQuantity(storage) ?? storage, 'must be greater than zero'));
  errors.push(...classNameErrors(spec.storageClassName, specPath.child('storageClassName')));
  errors.push(...volumeModeErrors(spec.volumeMode, specPath.child('volumeMode')));
  if (spec.dataSource !== undefined)
    errors.push(...validateDataSource(spec.dataSource, specPath.child('dataSource'), options));
  if (spec.dataSourceRef !== undefined)
    errors.push(...validateDataSource(spec.dataSourceRef, specPath.child('dataSourceRef'), options));
  errors.push(...dataSourcesAgree(spec, specPath));
  errors.push(...classNameErrors(spec.volumeAttributesClassName, specPath.child('volumeAttributesClassName')));
  return errors;
}

/** A claim's or a volume's mode; empty is a mode too, as the reference defaults only an absent one. */
export function volumeModeErrors(mode: string | null | undefined, path: FieldPath): FieldError[] {
  return mode != null && !VOLUME_MODES.includes(mode) ? [notSupported(path, mode, VOLUME_MODES)] : [];
}

/** A storage or volume attributes class named by a claim or a volume: empty means none, else a DNS subdomain. */
export function classNameErrors(name: string | null | undefined, path: FieldPath): FieldError[] {
  return name ? isDNS1123Subdomain(name).map((message) => invalid(path, name, message)) : [];
}

/** A claim template (an ephemeral volume's): metadata of labels and annotations only, and a claim's spec. */
/** Access modes of a claim or a volume: each a known one, ReadWriteOncePod alone. */
export function accessModeErrors(modes: readonly string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const mode of modes) if (!ACCESS_MODES.includes(mode)) errors.push(notSupported(path, mode, ACCESS_MODES));
  // Storage for one pod alone cannot be shared in another mode at once.
  if (
    modes.includes('ReadWriteOncePod') &&
    modes.some((mode) => mode !== 'ReadWriteOncePod' && ACCESS_MODES.includes(mode))
  )
    errors.push(forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errors;
}

export interface ClaimTemplate {
  metadata?: Record<string, unknown>;
  spec?: ClaimSpec;
}

/**
 * The reference's ValidatePersistentVolumeClaimTemplate with the options it gives an ephemeral
 * volume's template: those of a new claim, as it passes no old template even on update.
 */
export function validatePersistentVolumeClaimTemplate(template: ClaimTemplate, path: FieldPath): FieldError[] {
  return [
    ...validateTemplateObjectMeta(template.metadata ?? {}, path.child('metadata')),
    ...validatePersistentVolumeClaimSpec(template.spec, path.child('spec')),
  ];
}
