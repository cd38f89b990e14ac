/** Rules of the resource.k8s.io kinds, after the reference's, with its texts. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../registry/types';
import { FieldPath, forbidden, immutable, invalid, notSupported, required } from '../status/field-errors';
import { isDNS1123Label, isDNS1123Subdomain } from './names';
import { validateAnnotations, validateLabels } from './object-meta';

/** A driver's name is a DNS subdomain (the reference reports both errors when it is empty). */
function validateDriverName(driver: unknown, path: FieldPath): FieldError[] {
  const value = typeof driver === 'string' ? driver : '';
  const errors: FieldError[] = value === '' ? [required(path)] : [];
  return [...errors, ...isDNS1123Subdomain(value).map((message) => invalid(path, value, message))];
}

/** A ResourceSlice names its driver. */
export function validateResourceSlice(object: KubeObject): FieldError[] {
  return validateDriverName(
    ((object.spec ?? {}) as { driver?: unknown }).driver,
    FieldPath.root('spec').child('driver'),
  );
}

interface DeviceConfiguration {
  opaque?: { driver?: string; parameters?: unknown };
}

/** Driver-specific parameters: a driver, and a JSON object for it. */
function validateDeviceConfiguration(config: DeviceConfiguration, path: FieldPath): FieldError[] {
  if (config.opaque === undefined) return [required(path.child('opaque'))];
  const at = path.child('opaque');
  const errors = validateDriverName(config.opaque.driver, at.child('driver'));
  const parameters = config.opaque.parameters;
  if (parameters === undefined || parameters === null) errors.push(required(at.child('parameters')));
  else if (typeof parameters !== 'object' || Array.isArray(parameters))
    errors.push(invalid(at.child('parameters'), '<value omitted>', 'must be a valid JSON object'));
  return errors;
}

/** Selectors are CEL expressions (compiled by the scheduler; here only their presence is checked). */
function validateSelectors(selectors: readonly { cel?: unknown }[] | undefined, path: FieldPath): FieldError[] {
  return (selectors ?? []).flatMap((selector, i) =>
    selector.cel === undefined ? [required(path.index(i).child('cel'))] : [],
  );
}

export function validateDeviceClass(deviceClass: KubeObject): FieldError[] {
  const spec =
    (deviceClass.spec as { selectors?: { cel?: unknown }[]; config?: DeviceConfiguration[] } | undefined) ?? {};
  const path = FieldPath.root('spec');
  return [
    ...validateSelectors(spec.selectors, path.child('selectors')),
    ...(spec.config ?? []).flatMap((config, i) => validateDeviceConfiguration(config, path.child('config').index(i))),
  ];
}

interface ExactDeviceRequest {
  deviceClassName?: string;
  selectors?: { cel?: unknown }[];
  allocationMode?: string;
  count?: number;
}

interface DeviceRequest {
  name?: string;
  exactly?: ExactDeviceRequest;
  firstAvailable?: (ExactDeviceRequest & { name?: string })[];
}

interface DeviceClaim {
  requests?: DeviceRequest[];
  constraints?: { requests?: string[]; matchAttribute?: string; distinctAttribute?: string }[];
  config?: (DeviceConfiguration & { requests?: string[] })[];
}

function requestNameErrors(name: string, path: FieldPath): FieldError[] {
  return isDNS1123Label(name).map((message) => invalid(path, name, message));
}

function validateExactRequest(request: ExactDeviceRequest, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const className = request.deviceClassName ?? '';
  if (className === '') errors.push(required(path.child('deviceClassName')));
  else
    for (const message of isDNS1123Subdomain(className))
      errors.push(invalid(path.child('deviceClassName'), className, message));
  errors.push(...validateSelectors(request.selectors, path.child('selectors')));
  const count = request.count ?? 0;
  if (request.allocationMode === 'All') {
    if (count !== 0)
      errors.push(invalid(path.child('count'), count, "must not be specified when allocationMode is 'All'"));
  } else if (request.allocationMode === 'ExactCount') {
    if (count <= 0) errors.push(invalid(path.child('count'), count, 'must be greater than zero'));
  } else {
    errors.push(notSupported(path.child('allocationMode'), request.allocationMode ?? '', ['All', 'ExactCount']));
  }
  return errors;
}

const REQUEST_REFERENCE =
  "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

/** What a claim asks for: named requests, each for exactly one kind of device, and constraints and configs naming them. */
function validateDeviceClaim(devices: DeviceClaim | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Map<string, Set<string>>();
  (devices?.requests ?? []).forEach((request, i) => {
    const at = path.child('requests').index(i);
    const name = request.name ?? '';
    errors.push(...requestNameErrors(name, at.child('name')));
    const alternatives = request.firstAvailable ?? [];
    names.set(name, new Set(alternatives.map((alternative) => alternative.name ?? '')));
    alternatives.forEach((alternative, j) => {
      const altPath = at.child('firstAvailable').index(j);
      errors.push(
        ...requestNameErrors(alternative.name ?? '', altPath.child('name')),
        ...validateExactRequest(alternative, altPath),
      );
    });
    if (request.exactly !== undefined) errors.push(...validateExactRequest(request.exactly, at.child('exactly')));
    const kinds = (alternatives.length > 0 ? 1 : 0) + (request.exactly !== undefined ? 1 : 0);
    if (kinds === 0) errors.push(required(at, 'exactly one of `exactly` or `firstAvailable` is required'));
    if (kinds > 1)
      errors.push(
        invalid(at, null, 'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'),
      );
  });
  const referenceErrors = (reference: string, at: FieldPath): FieldError[] => {
    const segments = reference.split('/');
    if (segments.length > 2) return [invalid(at, reference, REQUEST_REFERENCE)];
    const found = names.get(segments[0]);
    const known = found !== undefined && (segments.length === 1 || found.has(segments[1]));
    return [
      ...segments.flatMap((segment) => requestNameErrors(segment, at)),
      ...(known ? [] : [invalid(at, reference, REQUEST_REFERENCE)]),
    ];
  };
  (devices?.constraints ?? []).forEach((constraint, i) => {
    const at = path.child('constraints').index(i);
    (constraint.requests ?? []).forEach((reference, j) =>
      errors.push(...referenceErrors(reference, at.child('requests').index(j))),
    );
    if (constraint.matchAttribute === undefined && constraint.distinctAttribute === undefined)
      errors.push(required(at.child('matchAttribute')));
  });
  (devices?.config ?? []).forEach((config, i) => {
    const at = path.child('config').index(i);
    (config.requests ?? []).forEach((reference, j) =>
      errors.push(...referenceErrors(reference, at.child('requests').index(j))),
    );
    errors.push(...validateDeviceConfiguration(config, at));
  });
  return errors;
}

export function validateResourceClaim(claim: KubeObject): FieldError[] {
  return validateDeviceClaim(
    (claim.spec as { devices?: DeviceClaim } | undefined)?.devices,
    FieldPath.root('spec', 'devices'),
  );
}

/** A template's metadata carries labels and annotations only. */
const TEMPLATE_METADATA_ALLOWED = ['labels', 'annotations'];

export function validateResourceClaimTemplate(template: KubeObject): FieldError[] {
  const spec =
    (template.spec as { metadata?: Record<string, unknown>; spec?: { devices?: DeviceClaim } } | undefined) ?? {};
  const metadataPath = FieldPath.root('spec', 'metadata');
  const metadata = spec.metadata ?? {};
  const errors = [
    ...validateAnnotations(
      metadata.annotations as Record<string, string> | undefined,
      metadataPath.child('annotations'),
    ),
    ...validateLabels(metadata.labels as Record<string, string> | undefined, metadataPath.child('labels')),
  ];
  for (const member of Object.keys(metadata)) {
    if (!TEMPLATE_METADATA_ALLOWED.includes(member))
      errors.push(forbidden(metadataPath.child(member), 'cannot be set'));
  }
  errors.push(...validateDeviceClaim(spec.spec?.devices, FieldPath.root('spec', 'spec', 'devices')));
  return errors;
}

/** A claim's spec is fixed once made: the scheduler allocates for it. */
export function validateResourceClaimUpdate(claim: KubeObject, old: KubeObject): FieldError[] {
  return [...immutable(FieldPath.root('spec'), claim.spec ?? null, old.spec ?? null), ...validateResourceClaim(claim)];
}

/** A template's spec is fixed once made, as the claims made from it are. */
export function validateResourceClaimTemplateUpdate(template: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...immutable(FieldPath.root('spec'), template.spec ?? null, old.spec ?? null),
    ...validateResourceClaimTemplate(template),
  ];
}

/** A slice stays in its pool, of its driver, on its node. */
export function validateResourceSliceUpdate(slice: KubeObject, old: KubeObject): FieldError[] {
  const specOf = (object: KubeObject) =>
    (object.spec ?? {}) as { driver?: string; nodeName?: string | null; pool?: { name?: string } };
  const [spec, oldSpec] = [specOf(slice), specOf(old)];
  const path = FieldPath.root('spec');
  return [
    ...validateResourceSlice(slice),
    ...immutable(path.child('pool', 'name'), spec.pool?.name ?? '', oldSpec.pool?.name ?? ''),
    ...immutable(path.child('driver'), spec.driver ?? '', oldSpec.driver ?? ''),
    ...immutable(path.child('nodeName'), spec.nodeName ?? null, oldSpec.nodeName ?? null),
  ];
}
