/**
 * resource.k8s.io (dynamic resource allocation) between its served versions, as the reference
 * 1.34 converts them through its internal version, which has v1's shape:
 *
 * - v1beta2 and v1 have the same fields, JSON and defaults: only `apiVersion` changes.
 * - v1beta1 differs in three places:
 *   - a DeviceRequest holds the fields of one exact request at its own level, where v1 nests
 *     them in `exactly` (beside `firstAvailable`). Towards v1, `exactly` is made when any of
 *     them is set (an invalid mix with `firstAvailable` is then refused by validation, not
 *     lost); towards v1beta1 they are lifted out again, and `deviceClassName` is always
 *     written, since v1beta1 has no `omitempty` on it.
 *   - a ResourceSlice's Device keeps its properties under `basic`, written even when empty.
 *   - a ResourceSliceSpec's `nodeName` and `allNodes` are plain values there and pointers in
 *     v1, so `""` and `false` are "not set" on both sides.
 * Nothing else differs (claim status, device classes, sub-requests, capacity quantities), and no
 * annotation is needed to keep a round trip lossless: every v1 field has a v1beta1 place.
 */
import type { KubeObject } from '../../../api/objects';
import { groupVersionString, type GroupVersion } from '../../../api/identity';
import type { Json } from './rename';

export const RESOURCE_GROUP = 'resource.k8s.io';
const V1 = 'v1';
const V1BETA1 = 'v1beta1';
const V1BETA2 = 'v1beta2';

/** How one kind's body (everything but apiVersion) changes between v1beta1 and v1. */
interface V1beta1Shape {
  readonly toV1: (object: Json) => Json;
  readonly fromV1: (object: Json) => Json;
}

/**
 * How Go writes a field: a `value` with `omitempty` is left out when empty (`""`, 0, false, an
 * empty list or map); a `pointer` is written whenever it is set, `false` and `{}` included.
 */
type Written = 'value' | 'pointer';

/** The fields of one exact request, in the order both versions write them. */
const EXACT_REQUEST_FIELDS: readonly (readonly [string, Written])[] = [
  ['deviceClassName', 'value'],
  ['selectors', 'value'],
  ['allocationMode', 'value'],
  ['count', 'value'],
  ['adminAccess', 'pointer'],
  ['tolerations', 'value'],
  ['capacity', 'pointer'],
];

/** The properties of a device, which v1beta1 keeps under `basic`, in the order both write them. */
const DEVICE_PROPERTY_FIELDS: readonly (readonly [string, Written])[] = [
  ['attributes', 'value'],
  ['capacity', 'value'],
  ['consumesCounters', 'value'],
  ['nodeName', 'pointer'],
  ['nodeSelector', 'pointer'],
  ['allNodes', 'pointer'],
  ['taints', 'value'],
  ['bindsToNode', 'pointer'],
  ['bindingConditions', 'value'],
  ['bindingFailureConditions', 'value'],
  ['allowMultipleAllocations', 'pointer'],
];

const namesOf = (fields: readonly (readonly [string, Written])[]) => fields.map(([field]) => field);

/** Go's view of a field on the way in: null and absent are both its zero value (a nil pointer or list). */
function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Whether Go's `omitempty` writes a value: not an empty string, zero, false, empty list or empty map. */
function isNotEmpty(value: unknown): boolean {
  if (!isSet(value) || value === '' || value === 0 || value === false) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as Json).length > 0;
  return true;
}

/** The fields Go would write of `source`, in the table's order. */
function written(source: Json, fields: readonly (readonly [string, Written])[]): Json {
  const picked: Json = {};
  for (const [field, how] of fields) {
    const value = source[field];
    if (how === 'pointer' ? isSet(value) : isNotEmpty(value)) picked[field] = value;
  }
  return picked;
}

function omit(source: Json, fields: readonly string[]): Json {
  const rest: Json = { ...source };
  for (const field of fields) delete rest[field];
  return rest;
}

/** As the reference decides it: any field given, a list even when empty, makes an exact request. */
function setsExactRequest(request: Json): boolean {
  return (
    isNotEmpty(request.deviceClassName) ||
    isSet(request.selectors) ||
    isNotEmpty(request.allocationMode) ||
    isNotEmpty(request.count) ||
    isSet(request.adminAccess) ||
    isSet(request.tolerations) ||
    isSet(request.capacity)
  );
}

function requestToV1(request: Json): Json {
  const { name, firstAvailable } = request;
  // Not omitempty in v1 either: an exact request always names its class.
  const exactly = { deviceClassName: '', ...written(request, EXACT_REQUEST_FIELDS) };
  return {
    name,
    ...(setsExactRequest(request) ? { exactly } : {}),
    ...(isNotEmpty(firstAvailable) ? { firstAvailable } : {}),
    ...omit(request, [...namesOf(EXACT_REQUEST_FIELDS), 'name', 'firstAvailable']),
  };
}

function requestFromV1(request: Json): Json {
  const { name, exactly, firstAvailable, ...rest } = request;
  const exact = isSet(exactly) ? written(exactly as Json, EXACT_REQUEST_FIELDS) : {};
  const { tolerations, capacity, ...beforeFirstAvailable } = exact;
  return {
    name,
    // Not omitempty in v1beta1: written even for a request made of alternatives.
    deviceClassName: '',
    ...beforeFirstAvailable,
    ...(isNotEmpty(firstAvailable) ? { firstAvailable } : {}),
    ...(tolerations !== undefined ? { tolerations } : {}),
    ...(capacity !== undefined ? { capacity } : {}),
    ...rest,
  };
}

function deviceToV1(device: Json): Json {
  const { basic, ...rest } = device;
  return { ...rest, ...(isSet(basic) ? written(basic as Json, DEVICE_PROPERTY_FIELDS) : {}) };
}

/** `basic` is a pointer the reference always sets, so an empty one is written as `{}`. */
function deviceFromV1(device: Json): Json {
  return {
    ...omit(device, namesOf(DEVICE_PROPERTY_FIELDS)),
    basic: written(device, DEVICE_PROPERTY_FIELDS),
  };
}

/** `""` and `false` are values in v1beta1 and no pointer in v1: both mean "not set". */
function withoutUnsetNodeSelection(spec: Json): Json {
  const rest = { ...spec };
  if (rest.nodeName === '' || rest.nodeName === null) delete rest.nodeName;
  if (rest.allNodes === false || rest.allNodes === null) delete rest.allNodes;
  return rest;
}

function mapItems(list: unknown, convert: (item: Json) => Json): unknown {
  return Array.isArray(list) ? list.map((item) => convert(item as Json)) : list;
}

/** A claim spec's requests, converted one by one. */
function claimSpecWith(spec: unknown, convertRequest: (request: Json) => Json): unknown {
  if (!isSet(spec)) return spec;
  const devices = (spec as Json).devices;
  if (!isSet(devices)) return spec;
  const requests = (devices as Json).requests;
  return { ...(spec as Json), devices: { ...(devices as Json), requests: mapItems(requests, convertRequest) } };
}

function withField(object: Json, field: string, value: unknown): Json {
  return value === undefined ? object : { ...object, [field]: value };
}

const SAME_SHAPE: V1beta1Shape = { toV1: (object) => object, fromV1: (object) => object };

const CLAIM_SHAPE: V1beta1Shape = {
  toV1: (claim) => withField(claim, 'spec', claimSpecWith(claim.spec, requestToV1)),
  fromV1: (claim) => withField(claim, 'spec', claimSpecWith(claim.spec, requestFromV1)),
};

/** A template's claim spec is one level down, in `spec.spec`. */
function templateShape(convertRequest: (request: Json) => Json): (template: Json) => Json {
  return (template) => {
    const spec = template.spec;
    if (!isSet(spec)) return template;
    return { ...template, spec: withField(spec as Json, 'spec', claimSpecWith((spec as Json).spec, convertRequest)) };
  };
}

const TEMPLATE_SHAPE: V1beta1Shape = { toV1: templateShape(requestToV1), fromV1: templateShape(requestFromV1) };

function sliceShape(convertDevice: (device: Json) => Json): (slice: Json) => Json {
  return (slice) => {
    const spec = slice.spec;
    if (!isSet(spec)) return slice;
    const converted = withoutUnsetNodeSelection(spec as Json);
    return { ...slice, spec: withField(converted, 'devices', mapItems(converted.devices, convertDevice)) };
  };
}

const SLICE_SHAPE: V1beta1Shape = { toV1: sliceShape(deviceToV1), fromV1: sliceShape(deviceFromV1) };

function versionOf(object: KubeObject): string {
  const apiVersion = object.apiVersion ?? '';
  const prefix = `${RESOURCE_GROUP}/`;
  if (!apiVersion.startsWith(prefix)) throw new Error(`not a ${RESOURCE_GROUP} object: ${apiVersion}`);
  return apiVersion.slice(prefix.length);
}

/** A kind's conversion between any two of v1, v1beta2 and v1beta1, through v1. */
function converterFor(shape: V1beta1Shape): (object: KubeObject, to: GroupVersion) => KubeObject {
  return (object, to) => {
    const from = versionOf(object);
    if (to.group !== RESOURCE_GROUP)
      throw new Error(`cannot convert ${String(object.kind)} to ${groupVersionString(to)}`);
    if (from === to.version) return object;
    const { apiVersion: _apiVersion, ...body } = object as Json;
    let v1: Json;
    if (from === V1 || from === V1BETA2) v1 = body;
    else if (from === V1BETA1) v1 = shape.toV1(body);
    else throw new Error(`cannot convert ${String(object.kind)} from ${String(object.apiVersion)}`);
    let converted: Json;
    if (to.version === V1 || to.version === V1BETA2) converted = v1;
    else if (to.version === V1BETA1) converted = shape.fromV1(v1);
    else throw new Error(`cannot convert ${String(object.kind)} to ${groupVersionString(to)}`);
    // Spread over the input, so that its fields keep their order (the reference writes `kind` first).
    return { ...object, ...converted, apiVersion: groupVersionString(to) } as KubeObject;
  };
}

export const convertDeviceClass = converterFor(SAME_SHAPE);
export const convertResourceClaim = converterFor(CLAIM_SHAPE);
export const convertResourceClaimTemplate = converterFor(TEMPLATE_SHAPE);
export const convertResourceSlice = converterFor(SLICE_SHAPE);
