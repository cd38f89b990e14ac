/**
 * Validation of `metadata` on create and update, as the reference's ValidateObjectMeta and
 * ValidateObjectMetaUpdate, plus the label, annotation and selector checks other kinds reuse.
 */
import type { ObjectMeta, OwnerReference } from '../../api/objects';
import { goSharpStringSlice } from '../../api/go-quote';
import { parseGroupVersion } from '../../api/identity';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, immutable, invalid, required, tooLong, notSupported } from '../status/field-errors';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, type NameValidator } from './names';

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function validateLabels(labels: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const message of isQualifiedName(key)) errors.push(invalid(path, key, message));
    // The reference names the labels, not the key, for a bad value too.
    for (const message of isValidLabelValue(value)) errors.push(invalid(path, value, message));
  }
  return errors;
}

/** A label key where a field holds one (the reference's ValidateLabelName): a qualified name. */
export function validateLabelName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((message) => invalid(path, name, message));
}

export function validateAnnotations(annotations: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    for (const message of isQualifiedName(key.toLowerCase())) errors.push(invalid(path, key, message));
    size += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errors.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errors;
}

/**
 * The members of metadata in the order of Go's ObjectMeta, each with the name the reference
 * reports it under (the Go name with its first letter lowered, hence `uID`) and whether a value
 * is Go's zero one: an empty string or 0 for a plain member, only absence (null) for a pointer,
 * list or time, so an empty list counts as set.
 */
const OBJECT_META_MEMBERS: readonly { member: string; reportedAs: string; plain?: boolean }[] = [
  { member: 'name', reportedAs: 'name', plain: true },
  { member: 'generateName', reportedAs: 'generateName', plain: true },
  { member: 'namespace', reportedAs: 'namespace', plain: true },
  { member: 'selfLink', reportedAs: 'selfLink', plain: true },
  { member: 'uid', reportedAs: 'uID', plain: true },
  { member: 'resourceVersion', reportedAs: 'resourceVersion', plain: true },
  { member: 'generation', reportedAs: 'generation', plain: true },
  { member: 'creationTimestamp', reportedAs: 'creationTimestamp' },
  { member: 'deletionTimestamp', reportedAs: 'deletionTimestamp' },
  { member: 'deletionGracePeriodSeconds', reportedAs: 'deletionGracePeriodSeconds' },
  { member: 'ownerReferences', reportedAs: 'ownerReferences' },
  { member: 'finalizers', reportedAs: 'finalizers' },
  { member: 'managedFields', reportedAs: 'managedFields' },
];

/**
 * The metadata of a template inside another object (a claim template), as the reference's
 * ValidateTemplateObjectMeta: only labels and annotations are used, so every other member set
 * is refused, lest it seem to take effect.
 */
export function validateTemplateObjectMeta(metadata: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors = [
    ...validateAnnotations(metadata.annotations as Record<string, string> | undefined, path.child('annotations')),
    ...validateLabels(metadata.labels as Record<string, string> | undefined, path.child('labels')),
  ];
  for (const { member, reportedAs, plain } of OBJECT_META_MEMBERS) {
    const value = metadata[member];
    const isZero = value === undefined || value === null || (plain === true && (value === '' || value === 0));
    if (!isZero) errors.push(forbidden(path.child(reportedAs), 'cannot be set'));
  }
  return errors;
}

const ORPHAN_FINALIZER = 'orphan';
const FOREGROUND_FINALIZER = 'foregroundDeletion';
const STANDARD_FINALIZERS = new Set(['kubernetes', ORPHAN_FINALIZER, FOREGROUND_FINALIZER]);

/**
 * The reference's ValidateFinalizers (apimachinery): every name qualified, reported at the list's
 * path; the apiextensions server and the generic registry check no more than this.
 */
function validateFinalizers(finalizers: readonly string[] | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const finalizer of finalizers ?? [])
    for (const message of isQualifiedName(finalizer)) errors.push(invalid(path, finalizer, message));
  if (finalizers?.includes(ORPHAN_FINALIZER) && finalizers.includes(FOREGROUND_FINALIZER)) {
    errors.push(
      invalid(path, finalizers, `finalizer ${FOREGROUND_FINALIZER} and ${ORPHAN_FINALIZER} cannot be both set`),
    );
  }
  return errors;
}

/**
 * The main server's kinds also hold a name without a `/` to the standard ones (the reference's
 * validateKubeFinalizerName), whether or not it is qualified: only those are known to be acted on.
 */
function kubeFinalizerNameErrors(finalizer: string, path: FieldPath): FieldError[] {
  return finalizer.includes('/') || STANDARD_FINALIZERS.has(finalizer)
    ? []
    : [invalid(path, finalizer, 'name is neither a standard finalizer name nor is it fully qualified')];
}

/** One finalizer name as the main server's kinds check it (the reference's validateFinalizerName). */
export function validateFinalizerName(finalizer: string, path: FieldPath): FieldError[] {
  return [
    ...isQualifiedName(finalizer).map((message) => invalid(path, finalizer, message)),
    ...kubeFinalizerNameErrors(finalizer, path),
  ];
}

/**
 * What the main server's kinds add to the metadata checks, after all the rest: each finalizer
 * held to the standard names at its own index (the core ValidateObjectMeta and
 * ValidateObjectMetaUpdate).
 */
export function kubeFinalizerListErrors(
  finalizers: readonly string[] | undefined,
  path = FieldPath.root('metadata', 'finalizers'),
): FieldError[] {
  return (finalizers ?? []).flatMap((finalizer, i) => kubeFinalizerNameErrors(finalizer, path.index(i)));
}

/** An owner reference as json.Marshal writes the Go struct: its members in order, the flags only when set. */
function goOwnerReference(ref: OwnerReference): Record<string, unknown> {
  return {
    apiVersion: ref.apiVersion ?? '',
    kind: ref.kind ?? '',
    name: ref.name ?? '',
    uid: ref.uid ?? '',
    ...(ref.controller == null ? {} : { controller: ref.controller }),
    ...(ref.blockOwnerDeletion == null ? {} : { blockOwnerDeletion: ref.blockOwnerDeletion }),
  };
}

/**
 * apimachinery's ValidateOwnerReferences: each reference names a version, kind, name and uid, and
 * not a core v1 Event (its BannedOwners: that one kind alone, matched exactly); at most one is the
 * controller.
 */
export function validateOwnerReferences(
  references: readonly OwnerReference[] | undefined,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const controllers: string[] = [];
  for (const ref of references ?? []) {
    const groupVersion = parseGroupVersion(ref.apiVersion ?? '');
    const version = groupVersion?.version ?? '';
    if (version === '')
      errors.push(invalid(path.child('apiVersion'), ref.apiVersion ?? '', 'version must not be empty'));
    // 1.34 names the member only for the version; the others say "must not be empty" (recorded).
    if (!ref.kind) errors.push(invalid(path.child('kind'), ref.kind ?? '', 'must not be empty'));
    if (!ref.name) errors.push(invalid(path.child('name'), ref.name ?? '', 'must not be empty'));
    if (!ref.uid) errors.push(invalid(path.child('uid'), ref.uid ?? '', 'must not be empty'));
    if (groupVersion?.group === '' && version === 'v1' && ref.kind === 'Event')
      errors.push(invalid(path, goOwnerReference(ref), '/v1, Kind=Event is disallowed from being an owner'));
    if (ref.controller === true) controllers.push(`${ref.kind}/${ref.name}`);
  }
  if (controllers.length > 1) {
    errors.push(
      invalid(
        path,
        references,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  }
  return errors;
}

export interface ObjectMetaRules {
  readonly namespaced: boolean;
  readonly validateName: NameValidator;
  /**
   * Any qualified finalizer name, as the apiextensions server and the generic registry take
   * them; absent: the main server's kinds' standard names too (see kubeFinalizerListErrors).
   */
  readonly anyQualifiedFinalizer?: boolean;
}

/** Create-time metadata rules. `path` is `metadata` for top-level objects. */
export function validateObjectMeta(
  meta: ObjectMeta,
  rules: ObjectMetaRules,
  path = FieldPath.root('metadata'),
): FieldError[] {
  const errors: FieldError[] = [];
  if (meta.generateName) {
    for (const message of rules.validateName(meta.generateName, true))
      errors.push(invalid(path.child('generateName'), meta.generateName, message));
  }
  if (!meta.name) {
    errors.push(required(path.child('name'), 'name or generateName is required'));
  } else {
    for (const message of rules.validateName(meta.name, false))
      errors.push(invalid(path.child('name'), meta.name, message));
  }
  if (rules.namespaced) {
    if (!meta.namespace) errors.push(required(path.child('namespace')));
    else errors.push(...namespaceNameErrors(meta.namespace, path.child('namespace')));
  } else if (meta.namespace) {
    errors.push(forbidden(path.child('namespace'), 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errors.push(invalid(path.child('generation'), meta.generation, 'must be greater than or equal to 0'));
  }
  errors.push(...validateLabels(meta.labels, path.child('labels')));
  errors.push(...validateAnnotations(meta.annotations, path.child('annotations')));
  errors.push(...validateOwnerReferences(meta.ownerReferences, path.child('ownerReferences')));
  errors.push(...validateFinalizers(meta.finalizers, path.child('finalizers')));
  if (!rules.anyQualifiedFinalizer) errors.push(...kubeFinalizerListErrors(meta.finalizers, path.child('finalizers')));
  return errors;
}

function namespaceNameErrors(namespace: string, path: FieldPath): FieldError[] {
  return isDNS1123Label(namespace).map((message) => invalid(path, namespace, message));
}

/**
 * The reference's ValidateObjectMetaUpdate (its ValidateObjectMetaAccessorUpdate), in its order:
 * finalizers added to an object being deleted, then what may not change, then the new labels,
 * annotations and owner references checked again. An update runs it
 * more than once (see strategy.ts), each time reporting the same bad label again.
 */
export function validateObjectMetaUpdate(
  next: ObjectMeta,
  old: ObjectMeta,
  path = FieldPath.root('metadata'),
): FieldError[] {
  const errors: FieldError[] = [];
  if (old.deletionTimestamp !== undefined) {
    // A set difference in the reference, so each name once, sorted.
    const added = [...new Set(next.finalizers ?? [])].filter((f) => !(old.finalizers ?? []).includes(f)).sort();
    if (added.length > 0) {
      errors.push(
        forbidden(
          path.child('finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goSharpStringSlice(added)}`,
        ),
      );
    }
  }
  if ((next.generation ?? 0) < (old.generation ?? 0)) {
    errors.push(invalid(path.child('generation'), next.generation ?? 0, 'must not be decremented'));
  }
  errors.push(...immutable(path.child('name'), next.name, old.name));
  errors.push(...immutable(path.child('namespace'), next.namespace ?? '', old.namespace ?? ''));
  errors.push(...immutable(path.child('uid'), next.uid ?? '', old.uid ?? ''));
  errors.push(
    ...immutable(
      path.child('creationTimestamp'),
      next.creationTimestamp ?? null,
      old.creationTimestamp ?? null,
      next.creationTimestamp ?? 'null',
    ),
    ...immutable(path.child('deletionTimestamp'), next.deletionTimestamp ?? null, old.deletionTimestamp ?? null),
    ...immutable(
      path.child('deletionGracePeriodSeconds'),
      next.deletionGracePeriodSeconds ?? null,
      old.deletionGracePeriodSeconds ?? null,
    ),
  );
  errors.push(...validateLabels(next.labels, path.child('labels')));
  errors.push(...validateAnnotations(next.annotations, path.child('annotations')));
  errors.push(...validateOwnerReferences(next.ownerReferences, path.child('ownerReferences')));
  return errors;
}

export interface LabelSelectorShape {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface LabelSelectorOptions {
  /**
   * Leave the values of `matchExpressions` unchecked, as the reference's
   * AllowInvalidLabelValueInSelector does for selectors an update finds already stored with
   * invalid ones. Absent: unchecked, as the kinds other than NetworkPolicy still have them (the
   * reference checks them on create).
   */
  readonly allowInvalidLabelValues?: boolean;
}

/** Whether an expression of the selector holds a value that is no label value (the reference's LabelSelectorHasInvalidLabelValue). */
export function hasInvalidLabelValue(selector: LabelSelectorShape | undefined): boolean {
  return (selector?.matchExpressions ?? []).some((expression) =>
    (expression.values ?? []).some((value) => isValidLabelValue(value).length > 0),
  );
}

export interface LabelRequirement {
  key?: string;
  operator?: string;
  values?: readonly string[] | null;
}

/**
 * One requirement on labels, as a label selector's expression and a node selector's are
 * checked: its operator with the number of values it takes, its key, and (unless spared) its
 * values as label values. `comparisons`: Gt and Lt are operators too (node selectors).
 */
export function validateLabelRequirement(
  requirement: LabelRequirement,
  path: FieldPath,
  {
    allowInvalidLabelValues,
    comparisons,
  }: { readonly allowInvalidLabelValues: boolean; readonly comparisons: boolean },
): FieldError[] {
  const errors: FieldError[] = [];
  const values = requirement.values ?? [];
  const operator = requirement.operator ?? '';
  if (operator === 'In' || operator === 'NotIn') {
    if (values.length === 0)
      errors.push(required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (operator === 'Exists' || operator === 'DoesNotExist') {
    if (values.length > 0)
      errors.push(
        forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
      );
  } else if (comparisons && (operator === 'Gt' || operator === 'Lt')) {
    if (values.length !== 1)
      errors.push(required(path.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
  } else {
    errors.push(invalid(path.child('operator'), operator, 'not a valid selector operator'));
  }
  errors.push(...validateLabelName(requirement.key ?? '', path.child('key')));
  if (!allowInvalidLabelValues)
    values.forEach((value, j) => {
      for (const message of isValidLabelValue(value))
        errors.push(invalid(path.child('values').index(j), value, message));
    });
  return errors;
}

/** The reference's ValidateLabelSelector (metav1 form): the labels, then each expression. */
export function validateLabelSelector(
  selector: LabelSelectorShape | undefined,
  path: FieldPath,
  { allowInvalidLabelValues = true }: LabelSelectorOptions = {},
): FieldError[] {
  if (selector === undefined) return [];
  const errors = validateLabels(selector.matchLabels, path.child('matchLabels'));
  (selector.matchExpressions ?? []).forEach((expression, i) => {
    errors.push(
      ...validateLabelRequirement(expression, path.child('matchExpressions').index(i), {
        allowInvalidLabelValues,
        comparisons: false,
      }),
    );
  });
  return errors;
}

/**
 * Whether the reference's LabelSelectorAsSelector takes the selector: it refuses exactly what
 * the strict ValidateLabelSelector finds (an operator, key, value or label it cannot use). No
 * selector at all parses, as one that selects nothing.
 */
export function labelSelectorParses(selector: LabelSelectorShape | undefined): boolean {
  return validateLabelSelector(selector, FieldPath.root(), { allowInvalidLabelValues: false }).length === 0;
}

/** Whether a metav1 LabelSelector selects a label set (an empty selector selects everything). */
export function selectorMatches(selector: LabelSelectorShape, labels: Record<string, string> | undefined): boolean {
  const set = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (set[key] !== value) return false;
  }
  for (const expression of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(set, expression.key);
    const values = expression.values ?? [];
    switch (expression.operator) {
      case 'In':
        if (!has || !values.includes(set[expression.key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(set[expression.key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** A value that must be one of `supported` (sorted as the reference prints them). */
export function validateEnum(
  value: string | undefined,
  supported: readonly string[],
  path: FieldPath,
  requiredWhenAbsent = false,
): FieldError[] {
  if (value === undefined || value === '') return requiredWhenAbsent ? [required(path)] : [];
  return supported.includes(value) ? [] : [notSupported(path, value, [...supported].sort())];
}

export function validateNonnegative(value: number | undefined, path: FieldPath): FieldError[] {
  return typeof value === 'number' && value < 0 ? [invalid(path, value, 'must be greater than or equal to 0')] : [];
}
