/**
 * The downward API as the reference checks it: a pod field (named in the pod's v1 field labels,
 * and among those its consumer may show) or a container's resource (with a divisor the
 * resource's unit allows), for environment variables and for volume files, which also take a
 * relative path and a file mode (validateDownwardAPIVolumeFile).
 */
import { canonicalQuantity, parseQuantity, Quantity } from '../quantity/quantity';
import type { FieldError } from '../status/field-error';
import { invalid, notSupported, required, type FieldPath } from '../status/field-errors';
import { isQualifiedName } from './names';
import { HUGE_PAGES_PREFIX } from './resource-names';
import { fileModeErrors, localNonReservedPathErrors } from './volume-file-paths';

type Json = Record<string, unknown>;

/** What shows the pod to its containers: a volume's files or environment variables. */
export type DownwardAPIConsumer = 'volume' | 'env';

/** The pod fields each consumer may show, sorted as the reference lists them. */
const FIELD_PATHS: Readonly<Record<DownwardAPIConsumer, readonly string[]>> = {
  volume: ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'],
  env: [
    'metadata.name',
    'metadata.namespace',
    'metadata.uid',
    'spec.nodeName',
    'spec.serviceAccountName',
    'status.hostIP',
    'status.hostIPs',
    'status.podIP',
    'status.podIPs',
  ],
};
/** The v1 pod field labels (ConvertDownwardAPIFieldLabel), of which volumes take only some. */
const POD_FIELD_LABELS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);
/** Old v1 clients wrote `spec.host` for `spec.nodeName`. */
const LEGACY_FIELD_LABELS: Readonly<Record<string, string>> = { 'spec.host': 'spec.nodeName' };
const SUBSCRIPTED_FIELD_LABELS = ['metadata.annotations', 'metadata.labels'];

/** Sorted as the reference lists them. */
const RESOURCE_FIELDS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];
const HUGE_PAGES_PREFIXES = [`requests.${HUGE_PAGES_PREFIX}`, `limits.${HUGE_PAGES_PREFIX}`];
const BYTE_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];
const BYTE_DIVISORS_TEXT = BYTE_DIVISORS.join(', ');

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** `metadata.labels['key']` as its path and subscript (fieldpath.SplitMaybeSubscriptedPath). */
function splitSubscript(fieldPath: string): { readonly path: string; readonly subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const open = fieldPath.indexOf("['");
  if (open <= 0) return undefined;
  return { path: fieldPath.slice(0, open), subscript: fieldPath.slice(open + 2, -2) };
}

/** The field path in the pod's internal labels, or why the version's labels have none such. */
function convertFieldLabel(apiVersion: string, label: string): { path: string } | { problem: string } {
  if (apiVersion !== 'v1') return { problem: `unsupported pod version: ${apiVersion}` };
  const split = splitSubscript(label);
  if (split !== undefined)
    return SUBSCRIPTED_FIELD_LABELS.includes(split.path)
      ? { path: label }
      : { problem: `field label does not support subscript: ${label}` };
  if (POD_FIELD_LABELS.has(label)) return { path: label };
  if (label in LEGACY_FIELD_LABELS) return { path: LEGACY_FIELD_LABELS[label] };
  return { problem: `field label not supported: ${label}` };
}

/** A `fieldRef`: a v1 pod field the consumer may show; a label or annotation subscript names a key. */
export function objectFieldSelectorErrors(
  fieldRef: Json,
  consumer: DownwardAPIConsumer,
  path: FieldPath,
): FieldError[] {
  const apiVersion = text(fieldRef.apiVersion);
  const fieldPath = text(fieldRef.fieldPath);
  if (apiVersion === '') return [required(path.child('apiVersion'))];
  if (fieldPath === '') return [required(path.child('fieldPath'))];
  const converted = convertFieldLabel(apiVersion, fieldPath);
  if ('problem' in converted)
    return [invalid(path.child('fieldPath'), fieldPath, `error converting fieldPath: ${converted.problem}`)];
  const split = splitSubscript(converted.path);
  if (split !== undefined) {
    // Annotation keys are matched without case, so their subscript is checked lowered.
    const key = split.path === 'metadata.annotations' ? split.subscript.toLowerCase() : split.subscript;
    return isQualifiedName(key).map((message) => invalid(path, key, message));
  }
  const supported = FIELD_PATHS[consumer];
  return supported.includes(converted.path) ? [] : [notSupported(path.child('fieldPath'), converted.path, supported)];
}

/** The divisors a resource's unit allows, with the reference's wording of them; none for other resources. */
function allowedDivisors(resource: string): { readonly divisors: readonly string[]; readonly message: string }[] {
  const rules = [];
  if (resource === 'limits.cpu' || resource === 'requests.cpu')
    rules.push({
      divisors: ['1m', '1'],
      message: "only divisor's values 1m and 1 are supported with the cpu resource",
    });
  if (resource === 'limits.memory' || resource === 'requests.memory')
    rules.push({
      divisors: BYTE_DIVISORS,
      message: `only divisor's values ${BYTE_DIVISORS_TEXT} are supported with the memory resource`,
    });
  if (resource === 'limits.ephemeral-storage' || resource === 'requests.ephemeral-storage')
    rules.push({
      divisors: BYTE_DIVISORS,
      message: `only divisor's values ${BYTE_DIVISORS_TEXT} are supported with the local ephemeral storage resource`,
    });
  if (HUGE_PAGES_PREFIXES.some((prefix) => resource.startsWith(prefix)))
    rules.push({
      divisors: BYTE_DIVISORS,
      message: `only divisor's values ${BYTE_DIVISORS_TEXT} are supported with the hugepages resource`,
    });
  return rules;
}

/** A divisor left out (or zero) divides by one; any other is compared in its canonical form. */
function divisorErrors(resource: string, divisor: unknown, path: FieldPath): FieldError[] {
  if (typeof divisor !== 'string') return [];
  const quantity = parseQuantity(divisor);
  if (quantity === undefined || quantity.compareTo(new Quantity(0n)) === 0) return [];
  const canonical = canonicalQuantity(divisor);
  return allowedDivisors(resource)
    .filter(({ divisors }) => canonical === undefined || !divisors.includes(canonical))
    .map(({ message }) => invalid(path.child('divisor'), resource, message));
}

/**
 * A `resourceFieldRef`: one of the known resources or huge pages, of a named container for a
 * volume (a variable's is its own container's by default).
 */
export function resourceFieldSelectorErrors(
  resourceRef: Json,
  consumer: DownwardAPIConsumer,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const resource = text(resourceRef.resource);
  if (consumer === 'volume' && text(resourceRef.containerName) === '')
    errors.push(required(path.child('containerName')));
  else if (resource === '') errors.push(required(path.child('resource')));
  else if (!RESOURCE_FIELDS.includes(resource) && !HUGE_PAGES_PREFIXES.some((prefix) => resource.startsWith(prefix)))
    errors.push(notSupported(path.child('resource'), resource, RESOURCE_FIELDS));
  errors.push(...divisorErrors(resource, resourceRef.divisor, path));
  return errors;
}

/**
 * One file of a downward API volume or projection. `path` is the source's own: the reference
 * reports every file's errors there, without the item's index.
 */
export function downwardAPIVolumeFileErrors(file: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const filePath = text(file.path);
  if (filePath === '') errors.push(required(path.child('path')));
  errors.push(...localNonReservedPathErrors(filePath, path.child('path')));
  const fieldRef = file.fieldRef as Json | null | undefined;
  const resourceRef = file.resourceFieldRef as Json | null | undefined;
  if (fieldRef) {
    errors.push(...objectFieldSelectorErrors(fieldRef, 'volume', path.child('fieldRef')));
    if (resourceRef)
      errors.push(invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (resourceRef)
    errors.push(...resourceFieldSelectorErrors(resourceRef, 'volume', path.child('resourceFieldRef')));
  else errors.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
  errors.push(...fileModeErrors(file.mode, path.child('mode')));
  return errors;
}
