/** Rules of the resource.k8s.io kinds, after the reference's, with its texts. */
import type { KubeObject } from '../../api/objects';
import type { FeatureEnabled, FieldError, WriteContext } from '../registry/types';
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
  tooMany,
} from '../status/field-errors';
import {
  DNS1123_LABEL_MAX,
  goByteSlice,
  goLen,
  isCIdentifier,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from './names';
import { goNodeSelectorTerms, validateNodeSelector, type NodeSelector } from './node-selector';
import { immutableAs } from './semantic-equality';
import { internalCompactJson } from './internal-json';
import { validateTemplateObjectMeta } from './object-meta';
import { validateCSIDriverName } from './volume-sources';
import { blankExpressionError, isBlankExpression } from '../cel/compile-errors';
import { deviceSelectorProblem, type SelectorEnvironment } from './device-selectors';

/** A driver is named as a CSI driver is (the reference reuses that rule). */
function validateDriverName(driver: unknown, path: FieldPath): FieldError[] {
  return validateCSIDriverName(typeof driver === 'string' ? driver : '', path);
}

interface ResourceSliceSpec {
  driver?: unknown;
  pool?: { name?: string; generation?: number; resourceSliceCount?: number };
  nodeName?: string | null;
  nodeSelector?: unknown;
  allNodes?: boolean | null;
  perDeviceNodeSelection?: boolean | null;
  devices?: Device[];
  sharedCounters?: CounterSet[];
}

interface Device {
  name?: string;
  attributes?: Record<string, DeviceAttribute>;
  capacity?: Record<string, { requestPolicy?: unknown }>;
  consumesCounters?: CounterSet[];
  taints?: { key?: string; value?: string; effect?: string }[];
  allowMultipleAllocations?: boolean | null;
  nodeName?: string | null;
  nodeSelector?: unknown;
  allNodes?: boolean | null;
}

interface DeviceAttribute {
  int?: number | null;
  bool?: boolean | null;
  string?: string | null;
  version?: string | null;
}

/** As long as a node name may be: a pool is often named after its node. */
const POOL_NAME_MAX_LENGTH = 253;
const NODE_SELECTION_RULE =
  'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';
const DEVICE_NODE_SELECTION_RULE =
  'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec';

function subdomainErrors(value: string, path: FieldPath): FieldError[] {
  return isDNS1123Subdomain(value).map((message) => invalid(path, value, message));
}

/** A pool's name may have several subdomains separated by `/`. */
function poolNameErrors(name: string, path: FieldPath): FieldError[] {
  if (name === '') return [required(path)];
  const errors = goLen(name) > POOL_NAME_MAX_LENGTH ? [tooLong(path, POOL_NAME_MAX_LENGTH)] : [];
  for (const part of name.split('/')) errors.push(...subdomainErrors(part, path));
  return errors;
}

/** A pool counts its slices and generations. */
function validatePool(pool: ResourceSliceSpec['pool'], path: FieldPath): FieldError[] {
  const errors = poolNameErrors(pool?.name ?? '', path.child('name'));
  const count = pool?.resourceSliceCount ?? 0;
  if (count <= 0) errors.push(invalid(path.child('resourceSliceCount'), count, 'must be greater than zero'));
  const generation = pool?.generation ?? 0;
  if (generation < 0)
    errors.push(invalid(path.child('generation'), generation, 'must be greater than or equal to zero'));
  return errors;
}

/**
 * The ways of naming where devices are reachable (a node, a node selector, every node, or each
 * device its own): the names of those set, in the reference's order and quoting, with the
 * errors of a value set to "" or false, which is neither unset nor set.
 */
function nodeSelection(
  choice: { nodeName?: string | null; nodeSelector?: unknown; allNodes?: boolean | null },
  path: FieldPath,
  rules: { readonly emptyNodeName: string; readonly selector?: (selector: unknown) => FieldError[] },
): { set: string[]; errors: FieldError[] } {
  const set: string[] = [];
  const errors: FieldError[] = [];
  if (choice.nodeName !== undefined && choice.nodeName !== null) {
    if (choice.nodeName !== '') {
      set.push('`nodeName`');
      errors.push(...subdomainErrors(choice.nodeName, path.child('nodeName')));
    } else errors.push(invalid(path.child('nodeName'), '', rules.emptyNodeName));
  }
  if (choice.nodeSelector !== undefined && choice.nodeSelector !== null) {
    set.push('`nodeSelector`');
    errors.push(...(rules.selector?.(choice.nodeSelector) ?? []));
  }
  if (choice.allNodes !== undefined && choice.allNodes !== null) {
    if (choice.allNodes) set.push('`allNodes`');
    else errors.push(invalid(path.child('allNodes'), false, 'must be either unset or set to true'));
  }
  return { set, errors };
}

function exactlyOne(set: readonly string[], path: FieldPath, rules: { none: string; several: string }): FieldError[] {
  if (set.length === 0) return [required(path, rules.none)];
  if (set.length > 1) return [invalid(path, `{${set.join(', ')}}`, rules.several)];
  return [];
}

/** An attribute holds one typed value; the reference prints the offending one as its internal struct. */
function validateAttribute(attribute: DeviceAttribute, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (attribute.string != null && goLen(attribute.string) > ATTRIBUTE_MAX_VALUE_LENGTH)
    errors.push(tooLong(path.child('string'), ATTRIBUTE_MAX_VALUE_LENGTH));
  if (attribute.version != null) {
    if (!SEMVER.test(attribute.version))
      errors.push(
        invalid(path.child('version'), attribute.version, 'must be a string compatible with semver.org spec 2.0.0'),
      );
    if (goLen(attribute.version) > ATTRIBUTE_MAX_VALUE_LENGTH)
      errors.push(tooLong(path.child('version'), ATTRIBUTE_MAX_VALUE_LENGTH));
  }
  const values = [attribute.int, attribute.bool, attribute.string, attribute.version];
  const count = values.filter((value) => value !== undefined && value !== null).length;
  if (count === 0) errors.push(required(path, 'exactly one value must be specified'));
  if (count > 1) {
    const [IntValue, BoolValue, StringValue, VersionValue] = values.map((value) => value ?? null);
    errors.push(
      invalid(path, { IntValue, BoolValue, StringValue, VersionValue }, 'exactly one value must be specified'),
    );
  }
  return errors;
}

const ATTRIBUTE_MAX_VALUE_LENGTH = 64;
/** semver.org 2.0.0: three numbers without leading zeros, then optional pre-release and build parts. */
const SEMVER_NUMBER = '(0|[1-9]\\d*)';
const SEMVER_PRERELEASE = '(0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)';
const SEMVER_BUILD = '[0-9a-zA-Z-]+';
const SEMVER = new RegExp(
  `^${SEMVER_NUMBER}\\.${SEMVER_NUMBER}\\.${SEMVER_NUMBER}` +
    `(-${SEMVER_PRERELEASE}(\\.${SEMVER_PRERELEASE})*)?(\\+${SEMVER_BUILD}(\\.${SEMVER_BUILD})*)?$`,
);

/**
 * A map key as the reference prints it in a field path: one longer than `maxBytes` (never less
 * than 16) keeps its first and last bytes around `...`, cut at byte offsets, so that a message
 * about a huge key stays short. It is cut only for printing; the key's own rules see it whole.
 */
function keyInPath(key: string, maxBytes: number): string {
  const limit = Math.max(maxBytes, 16);
  const length = goLen(key);
  if (length <= limit) return key;
  const kept = limit - '...'.length;
  return `${goByteSlice(key, 0, Math.ceil(kept / 2))}...${goByteSlice(key, length - Math.floor(kept / 2))}`;
}

/** Counters are named and counted per set; names are DNS labels. */
interface CounterSet {
  name?: string;
  counterSet?: string;
  counters?: Record<string, unknown>;
}

/** At most this many counters, over all sets of a slice's sharedCounters, and over one device's consumption. */
const MAX_COUNTERS = 32;
/** At most this many counters consumed by all of a slice's devices together. */
const MAX_DEVICE_COUNTERS_PER_SLICE = 1024;

function labelErrors(value: string, path: FieldPath): FieldError[] {
  return isDNS1123Label(value).map((message) => invalid(path, value, message));
}

/** A set's counters: at least one, each named by a DNS label. */
function countersErrors(counters: CounterSet['counters'], path: FieldPath): FieldError[] {
  const names = Object.keys(counters ?? {});
  if (names.length === 0) return [required(path)];
  return names.flatMap((name) => labelErrors(name, path.key(keyInPath(name, DNS1123_LABEL_MAX))));
}

function counterCount(sets: readonly CounterSet[] | undefined): number {
  return (sets ?? []).reduce((sum, set) => sum + Object.keys(set.counters ?? {}).length, 0);
}

/** Items with their own rules, then at most `maxItems` of them (-1: any number) (the reference's validateSlice). */
function boundedItems<T>(
  items: readonly T[],
  path: FieldPath,
  maxItems: number,
  validateItem: (item: T, at: FieldPath) => FieldError[],
): FieldError[] {
  const errors = items.flatMap((item, i) => validateItem(item, path.index(i)));
  if (maxItems >= 0 && items.length > maxItems) errors.push(tooMany(path, items.length, maxItems));
  return errors;
}

/** A bounded list whose items' keys differ: then each key once (the reference's validateSet). */
function uniqueItems<T>(
  items: readonly T[],
  path: FieldPath,
  maxItems: number,
  validateItem: (item: T, at: FieldPath) => FieldError[],
  keyOf: (item: T) => { key: string; field: string },
  /** What a duplicate's message shows, when not its key. */
  printedKey?: unknown,
): FieldError[] {
  // A key `field` of '' is the item itself (a list of names).
  const errors = boundedItems(items, path, maxItems, validateItem);
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const { key, field } = keyOf(item);
    const at = field === '' ? path.index(i) : path.index(i).child(field);
    if (seen.has(key)) errors.push(duplicate(at, printedKey ?? key));
    seen.add(key);
  });
  return errors;
}

/** What a device uses up of the slice's shared counters: sets and counters that exist there. */
function validateConsumption(
  consumption: readonly CounterSet[],
  shared: ReadonlyMap<string, ReadonlySet<string>>,
  path: FieldPath,
): FieldError[] {
  const at = path.child('consumesCounters');
  const errors = uniqueItems(
    consumption,
    at,
    -1,
    (set, itemPath) => [
      ...((set.counterSet ?? '') === '' ? [required(itemPath.child('counterSet'))] : []),
      ...countersErrors(set.counters, itemPath.child('counters')),
    ],
    (set) => ({ key: set.counterSet ?? '', field: 'counterSet' }),
  );
  const total = counterCount(consumption);
  if (total > MAX_COUNTERS)
    errors.push(invalid(path, total, `the total number of counters must not exceed ${MAX_COUNTERS}`));
  consumption.forEach((set, i) => {
    const known = shared.get(set.counterSet ?? '');
    if (known === undefined)
      errors.push(
        invalid(
          at.index(i).child('counterSet'),
          set.counterSet ?? '',
          'must reference a counterSet defined in the ResourceSlice sharedCounters',
        ),
      );
    else
      for (const name of Object.keys(set.counters ?? {}))
        if (!known.has(name))
          errors.push(
            invalid(
              at.index(i).child('counters'),
              name,
              'must reference a counter defined in the ResourceSlice sharedCounters',
            ),
          );
  });
  return errors;
}

/** The longest identifier of an attribute or capacity, after its optional domain. */
const DEVICE_MAX_ID_LENGTH = 32;
/** The longest domain before an attribute's or capacity's identifier. */
const DEVICE_MAX_DOMAIN_LENGTH = 63;
/** The longest attribute or capacity name printed whole in a field path. */
const DEVICE_MAX_KEY_LENGTH = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH;

/** An attribute's or capacity's name: a C identifier, optionally after a driver-like domain and `/`. */
function qualifiedNameErrors(name: string, path: FieldPath): FieldError[] {
  if (name === '') return [required(path, 'name required')];
  const identifierErrors = (id: string) => [
    ...(goLen(id) > DEVICE_MAX_ID_LENGTH ? [tooLong(path, DEVICE_MAX_ID_LENGTH)] : []),
    ...isCIdentifier(id).map((message) => invalid(path, id, message)),
  ];
  const parts = name.split('/');
  if (parts.length === 1) return identifierErrors(name);
  if (parts.length > 2) return [];
  const [domain, id] = parts;
  return [
    ...(domain === '' ? [required(path, 'the domain must not be empty')] : validateDriverName(domain, path)),
    ...(id === '' ? [required(path, 'the name must not be empty')] : identifierErrors(id)),
  ];
}

/** An attribute named with its domain: a qualified name that has one. */
function fullyQualifiedNameErrors(name: string, path: FieldPath): FieldError[] {
  const errors = qualifiedNameErrors(name, path);
  if (name !== '' && !name.includes('/')) errors.push(invalid(path, name, 'must include a domain'));
  return errors;
}

const DEVICE_TAINT_EFFECTS = ['NoExecute', 'NoSchedule'];
/** The most taints a device may have, devices a slice, consumers a claim's reservation. */
const MAX_DEVICE_TAINTS = 4;
const MAX_DEVICES_PER_SLICE = 128;
const MAX_RESERVED_FOR = 256;

/** A device taint: a label-like key and value, and an effect the scheduler knows. */
function validateTaint(taint: NonNullable<Device['taints']>[number], path: FieldPath): FieldError[] {
  const key = taint.key ?? '';
  const errors = isQualifiedName(key).map((message) => invalid(path.child('key'), key, message));
  const value = taint.value ?? '';
  if (value !== '')
    errors.push(...isValidLabelValue(value).map((message) => invalid(path.child('value'), value, message)));
  const effect = taint.effect ?? '';
  if (effect === '') errors.push(required(path.child('effect')));
  else if (!DEVICE_TAINT_EFFECTS.includes(effect))
    errors.push(notSupported(path.child('effect'), effect, DEVICE_TAINT_EFFECTS));
  return errors;
}

function validateDevice(
  device: Device,
  path: FieldPath,
  slice: {
    readonly perDeviceNodeSelection: boolean;
    readonly sharedCounters: ReadonlyMap<string, ReadonlySet<string>>;
  },
): FieldError[] {
  const errors = isDNS1123Label(device.name ?? '').map((message) =>
    invalid(path.child('name'), device.name ?? '', message),
  );
  for (const [name, attribute] of Object.entries(device.attributes ?? {})) {
    const at = path.child('attributes').key(keyInPath(name, DEVICE_MAX_KEY_LENGTH));
    errors.push(...qualifiedNameErrors(name, at), ...validateAttribute(attribute, at));
  }
  // A request policy says how one device's capacity is shared among several allocations.
  for (const [name, capacity] of Object.entries(device.capacity ?? {})) {
    const at = path.child('capacity').key(keyInPath(name, DEVICE_MAX_KEY_LENGTH));
    errors.push(...qualifiedNameErrors(name, at));
    if (device.allowMultipleAllocations !== true && capacity.requestPolicy != null)
      errors.push(forbidden(at.child('requestPolicy'), 'allowMultipleAllocations must be true'));
  }
  errors.push(...boundedItems(device.taints ?? [], path.child('taints'), MAX_DEVICE_TAINTS, validateTaint));
  errors.push(...validateConsumption(device.consumesCounters ?? [], slice.sharedCounters, path));
  const selection = nodeSelection(device, path, {
    emptyNodeName: 'must not be empty',
    selector: (selector) => validateNodeSelector(selector as NodeSelector, false, path.child('nodeSelector')),
  });
  if (slice.perDeviceNodeSelection)
    errors.push(
      ...selection.errors,
      ...exactlyOne(selection.set, path, { none: DEVICE_NODE_SELECTION_RULE, several: DEVICE_NODE_SELECTION_RULE }),
    );
  else if (device.nodeName != null || device.nodeSelector != null || device.allNodes != null)
    errors.push(
      invalid(
        path,
        null,
        '`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec',
      ),
    );
  return errors;
}

/** A ResourceSlice: its driver, its pool, where its devices are reachable, and devices with unique names. */
export function validateResourceSlice(object: KubeObject): FieldError[] {
  const spec = (object.spec ?? {}) as ResourceSliceSpec;
  const path = FieldPath.root('spec');
  const errors = [
    ...validateDriverName(spec.driver, path.child('driver')),
    ...validatePool(spec.pool, path.child('pool')),
  ];
  const selection = nodeSelection(spec, path, {
    emptyNodeName: 'must be either unset or set to a non-empty string',
    // One term only, so that the selectors of devices allocated from several slices can be merged.
    selector: (selector) => {
      const errors = validateNodeSelector(selector as NodeSelector, false, path.child('nodeSelector'));
      const terms = (selector as NodeSelector).nodeSelectorTerms;
      if ((terms?.length ?? 0) === 1) return errors;
      const at = path.child('nodeSelector', 'nodeSelectorTerms');
      return [
        ...errors,
        invalid(at, terms == null ? null : goNodeSelectorTerms(terms), 'must have exactly one node selector term'),
      ];
    },
  });
  errors.push(...selection.errors);
  const perDevice = spec.perDeviceNodeSelection;
  if (perDevice === true) selection.set.push('`perDeviceNodeSelection`');
  else if (perDevice === false)
    errors.push(invalid(path.child('perDeviceNodeSelection'), false, 'must be either unset or set to true'));
  errors.push(
    ...exactlyOne(selection.set, path, {
      none: NODE_SELECTION_RULE,
      several: `${NODE_SELECTION_RULE}, but multiple fields are set`,
    }),
  );
  const sharedCounters = spec.sharedCounters ?? [];
  const shared = new Map(sharedCounters.map((set) => [set.name ?? '', new Set(Object.keys(set.counters ?? {}))]));
  const slice = { perDeviceNodeSelection: perDevice === true, sharedCounters: shared };
  const devices = spec.devices ?? [];
  errors.push(
    ...uniqueItems(
      devices,
      path.child('devices'),
      MAX_DEVICES_PER_SLICE,
      (device, at) => validateDevice(device, at, slice),
      (device) => ({ key: device.name ?? '', field: 'name' }),
    ),
  );
  const deviceCounters = devices.reduce((sum, device) => sum + counterCount(device.consumesCounters), 0);
  if (deviceCounters > MAX_DEVICE_COUNTERS_PER_SLICE)
    errors.push(
      invalid(
        path.child('devices'),
        deviceCounters,
        `the total number of counters in devices must not exceed ${MAX_DEVICE_COUNTERS_PER_SLICE}`,
      ),
    );
  const sharedTotal = counterCount(sharedCounters);
  if (sharedTotal > MAX_COUNTERS)
    errors.push(
      invalid(
        path.child('sharedCounters'),
        sharedTotal,
        `the total number of shared counters must not exceed ${MAX_COUNTERS}`,
      ),
    );
  errors.push(
    ...uniqueItems(
      sharedCounters,
      path.child('sharedCounters'),
      -1,
      (set, at) => [
        ...((set.name ?? '') === '' ? [required(at.child('name'))] : labelErrors(set.name ?? '', at.child('name'))),
        ...countersErrors(set.counters, at.child('counters')),
      ],
      (set) => ({ key: set.name ?? '', field: 'name' }),
    ),
  );
  return errors;
}

interface DeviceConfiguration {
  opaque?: { driver?: string; parameters?: unknown };
}

/** The most bytes of opaque parameters a new object may carry (older ones may hold more). */
const OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024;

/**
 * Driver-specific parameters: a driver, and a JSON object for it, of at most 10Ki unless `stored`
 * (kept unchanged from an object stored before the limit). The length is that of the compact
 * JSON: the reference measures the bytes as sent, which capstan no longer has.
 */
function validateDeviceConfiguration(config: DeviceConfiguration, path: FieldPath, stored = false): FieldError[] {
  if (config.opaque === undefined) return [required(path.child('opaque'))];
  const at = path.child('opaque');
  const errors = validateDriverName(config.opaque.driver, at.child('driver'));
  const parameters = config.opaque.parameters;
  if (parameters === undefined || parameters === null) errors.push(required(at.child('parameters')));
  else if (!stored && JSON.stringify(parameters).length > OPAQUE_PARAMETERS_MAX_LENGTH)
    errors.push(tooLong(at.child('parameters'), OPAQUE_PARAMETERS_MAX_LENGTH));
  else if (typeof parameters !== 'object' || Array.isArray(parameters))
    errors.push(invalid(at.child('parameters'), '<value omitted>', 'must be a valid JSON object'));
  return errors;
}

/** The most selectors a class, request or taint rule may have. */
const MAX_DEVICE_SELECTORS = 32;
/** The most requests a claim may make, and a constraint or config may name (DeviceRequestsMaxSize). */
const MAX_REQUESTS = 32;
/** The most alternatives a request may list. */
const MAX_FIRST_AVAILABLE = 8;
/** The most constraints, and configs, a claim (or configs a class) may have. */
const MAX_CONSTRAINTS = 32;
const MAX_CONFIGS = 32;
/** The longest selector expression the reference compiles. */
const CEL_SELECTOR_MAX_LENGTH = 10 * 1024;

/**
 * A selector's CEL expression: not too long, then compiled in the device environment (for a
 * stored expression where it is kept unchanged from the stored object). A blank one cannot
 * compile whatever the environment.
 */
function validateCELSelector(
  cel: { expression?: string },
  path: FieldPath,
  environment: SelectorEnvironment,
): FieldError[] {
  const expression = cel.expression ?? '';
  if (expression.length > CEL_SELECTOR_MAX_LENGTH) return [tooLong(path, CEL_SELECTOR_MAX_LENGTH)];
  if (isBlankExpression(expression))
    return [invalid(path, expression, `compilation failed: ${blankExpressionError(expression)}`)];
  const problem = deviceSelectorProblem(expression, environment);
  if (problem === undefined) return [];
  return [
    problem.kind === 'invalid'
      ? invalid(path, expression, problem.message)
      : forbidden(path, 'too complex, exceeds cost limit'),
  ];
}

type Selectors = readonly { cel?: { expression?: string } }[] | undefined;

/** What the writes of a kind tell its rules: the feature gates. */
type GatedContext = Pick<WriteContext, 'featureEnabled'>;

/**
 * The device environment of selectors: for stored or new expressions, with the fields the
 * feature gates give the device.
 */
function selectorEnvironment(featureEnabled: FeatureEnabled, stored: boolean): SelectorEnvironment {
  return { stored, consumableCapacity: featureEnabled('DRAConsumableCapacity') };
}

/** Selectors are CEL expressions, 32 at most. */
function validateSelectors(selectors: Selectors, path: FieldPath, environment: SelectorEnvironment): FieldError[] {
  const list = selectors ?? [];
  const errors = list.flatMap((selector, i) =>
    selector.cel === undefined
      ? [required(path.index(i).child('cel'))]
      : validateCELSelector(selector.cel, path.index(i).child('cel', 'expression'), environment),
  );
  if (list.length > MAX_DEVICE_SELECTORS) errors.push(tooMany(path, list.length, MAX_DEVICE_SELECTORS));
  return errors;
}

interface DeviceClassSpec {
  selectors?: { cel?: { expression?: string } }[];
  config?: DeviceConfiguration[];
}

/**
 * A DeviceClass's selectors, then its config. On update (`old` given) selectors, or a config,
 * unchanged from the stored ones (in order) count as stored; the reference's strategy also runs
 * the create rules, without it.
 */
export function validateDeviceClass(
  deviceClass: KubeObject,
  featureEnabled: FeatureEnabled,
  old?: KubeObject,
): FieldError[] {
  const spec = (deviceClass.spec as DeviceClassSpec | undefined) ?? {};
  const oldSpec = (old?.spec as DeviceClassSpec | undefined) ?? {};
  const unchanged = (field: keyof DeviceClassSpec) =>
    old !== undefined && deepEqual(spec[field] ?? [], oldSpec[field] ?? []);
  const path = FieldPath.root('spec');
  return [
    ...validateSelectors(
      spec.selectors,
      path.child('selectors'),
      selectorEnvironment(featureEnabled, unchanged('selectors')),
    ),
    ...boundedItems(spec.config ?? [], path.child('config'), MAX_CONFIGS, (config, at) =>
      validateDeviceConfiguration(config, at, unchanged('config')),
    ),
  ];
}

interface DeviceToleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

interface ExactDeviceRequest {
  deviceClassName?: string;
  selectors?: { cel?: { expression?: string } }[];
  allocationMode?: string;
  count?: number;
  tolerations?: DeviceToleration[];
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

function validateExactRequest(
  request: ExactDeviceRequest,
  path: FieldPath,
  environment: SelectorEnvironment,
): FieldError[] {
  const errors: FieldError[] = [];
  const className = request.deviceClassName ?? '';
  if (className === '') errors.push(required(path.child('deviceClassName')));
  else
    for (const message of isDNS1123Subdomain(className))
      errors.push(invalid(path.child('deviceClassName'), className, message));
  errors.push(...validateSelectors(request.selectors, path.child('selectors'), environment));
  const count = request.count ?? 0;
  if (request.allocationMode === 'All') {
    if (count !== 0)
      errors.push(invalid(path.child('count'), count, "must not be specified when allocationMode is 'All'"));
  } else if (request.allocationMode === 'ExactCount') {
    if (count <= 0) errors.push(invalid(path.child('count'), count, 'must be greater than zero'));
  } else {
    errors.push(notSupported(path.child('allocationMode'), request.allocationMode ?? '', ['All', 'ExactCount']));
  }
  (request.tolerations ?? []).forEach((toleration, i) =>
    errors.push(...validateToleration(toleration, path.child('tolerations').index(i))),
  );
  return errors;
}

const TOLERATION_OPERATORS = ['Equal', 'Exists'];

/** A request's toleration of device taints: a label-like key, a value only to compare, a known effect. */
function validateToleration(toleration: DeviceToleration, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const key = toleration.key ?? '';
  if (key !== '') errors.push(...isQualifiedName(key).map((message) => invalid(path.child('key'), key, message)));
  const value = toleration.value ?? '';
  const operator = toleration.operator ?? '';
  if (operator === 'Exists') {
    if (value !== '') errors.push(invalid(path.child('value'), value, 'must be empty for operator `Exists`'));
  } else if (operator === 'Equal')
    errors.push(...isValidLabelValue(value).map((message) => invalid(path.child('value'), value, message)));
  else if (operator === '') errors.push(required(path.child('operator')));
  else errors.push(notSupported(path.child('operator'), operator, TOLERATION_OPERATORS));
  const effect = toleration.effect ?? '';
  if (effect !== '' && !DEVICE_TAINT_EFFECTS.includes(effect))
    errors.push(notSupported(path.child('effect'), effect, DEVICE_TAINT_EFFECTS));
  return errors;
}

const REQUEST_REFERENCE =
  "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

/** A claim's request names, each with its alternatives' names (empty for an exact request). */
type RequestNames = ReadonlyMap<string, ReadonlySet<string>>;

function requestNamesOf(devices: DeviceClaim | undefined): RequestNames {
  return new Map(
    (devices?.requests ?? []).map((request) => [
      request.name ?? '',
      new Set((request.firstAvailable ?? []).map((alternative) => alternative.name ?? '')),
    ]),
  );
}

/** A reference to a request (`name`) or to one of its alternatives (`name/alternative`) of the claim. */
function requestReferenceErrors(reference: string, names: RequestNames, at: FieldPath): FieldError[] {
  const segments = reference.split('/');
  if (segments.length > 2) return [invalid(at, reference, REQUEST_REFERENCE)];
  const found = names.get(segments[0]);
  const known = found !== undefined && (segments.length === 1 || found.has(segments[1]));
  return [
    ...segments.flatMap((segment) => requestNameErrors(segment, at)),
    ...(known ? [] : [invalid(at, reference, REQUEST_REFERENCE)]),
  ];
}

/**
 * What a claim asks for: named requests, each for exactly one kind of device, and constraints and
 * configs naming them; on update its selectors are stored ones, the spec being immutable.
 */
function validateDeviceClaim(
  devices: DeviceClaim | undefined,
  path: FieldPath,
  environment: SelectorEnvironment,
): FieldError[] {
  const names = requestNamesOf(devices);
  const referenceErrors = (reference: string, at: FieldPath) => requestReferenceErrors(reference, names, at);
  /** A constraint's or config's requests: known names, each once. */
  const namedRequests = (requests: readonly string[], at: FieldPath) =>
    uniqueItems(requests, at, MAX_REQUESTS, referenceErrors, (reference) => ({ key: reference, field: '' }));
  const errors = uniqueItems(
    devices?.requests ?? [],
    path.child('requests'),
    MAX_REQUESTS,
    (request, at) => validateDeviceRequest(request, at, environment),
    (request) => ({ key: request.name ?? '', field: 'name' }),
  );
  errors.push(
    ...boundedItems(devices?.constraints ?? [], path.child('constraints'), MAX_CONSTRAINTS, (constraint, at) => {
      const constraintErrors = namedRequests(constraint.requests ?? [], at.child('requests'));
      // Only the first attribute set is judged; naming none is refused as the gate words it.
      if (constraint.matchAttribute !== undefined)
        constraintErrors.push(...fullyQualifiedNameErrors(constraint.matchAttribute, at.child('matchAttribute')));
      else if (constraint.distinctAttribute !== undefined)
        constraintErrors.push(...fullyQualifiedNameErrors(constraint.distinctAttribute, at.child('distinctAttribute')));
      else if (environment.consumableCapacity)
        constraintErrors.push(
          required(
            at,
            'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set',
          ),
        );
      else constraintErrors.push(required(at.child('matchAttribute')));
      return constraintErrors;
    }),
    ...boundedItems(devices?.config ?? [], path.child('config'), MAX_CONFIGS, (config, at) => [
      ...namedRequests(config.requests ?? [], at.child('requests')),
      ...validateDeviceConfiguration(config, at),
    ]),
  );
  return errors;
}

/** One request: its name, then its alternatives (each named once) or its exact request, never both. */
function validateDeviceRequest(request: DeviceRequest, at: FieldPath, environment: SelectorEnvironment): FieldError[] {
  const errors = requestNameErrors(request.name ?? '', at.child('name'));
  const alternatives = request.firstAvailable ?? [];
  if (alternatives.length > 0)
    errors.push(
      ...uniqueItems(
        alternatives,
        at.child('firstAvailable'),
        MAX_FIRST_AVAILABLE,
        (alternative, altPath) => [
          ...requestNameErrors(alternative.name ?? '', altPath.child('name')),
          ...validateExactRequest(alternative, altPath, environment),
        ],
        (alternative) => ({ key: alternative.name ?? '', field: 'name' }),
      ),
    );
  if (request.exactly !== undefined)
    errors.push(...validateExactRequest(request.exactly, at.child('exactly'), environment));
  const kinds = (alternatives.length > 0 ? 1 : 0) + (request.exactly !== undefined ? 1 : 0);
  if (kinds === 0) errors.push(required(at, 'exactly one of `exactly` or `firstAvailable` is required'));
  if (kinds > 1)
    errors.push(
      invalid(at, null, 'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'),
    );
  return errors;
}

function validateClaimSpec(claim: KubeObject, environment: SelectorEnvironment): FieldError[] {
  return validateDeviceClaim(
    (claim.spec as { devices?: DeviceClaim } | undefined)?.devices,
    FieldPath.root('spec', 'devices'),
    environment,
  );
}

export function validateResourceClaim(claim: KubeObject, context: GatedContext): FieldError[] {
  return validateClaimSpec(claim, selectorEnvironment(context.featureEnabled, false));
}

function validateTemplateSpec(template: KubeObject, environment: SelectorEnvironment): FieldError[] {
  const spec =
    (template.spec as { metadata?: Record<string, unknown>; spec?: { devices?: DeviceClaim } } | undefined) ?? {};
  return [
    ...validateTemplateObjectMeta(spec.metadata ?? {}, FieldPath.root('spec', 'metadata')),
    ...validateDeviceClaim(spec.spec?.devices, FieldPath.root('spec', 'spec', 'devices'), environment),
  ];
}

export function validateResourceClaimTemplate(template: KubeObject, context: GatedContext): FieldError[] {
  return validateTemplateSpec(template, selectorEnvironment(context.featureEnabled, false));
}

interface Allocation {
  devices?: { results?: AllocationResult[] | null; config?: Record<string, unknown>[] | null };
  nodeSelector?: { nodeSelectorTerms?: unknown[] | null } | null;
  allocationTimestamp?: string | null;
}

interface DeviceStatus {
  driver?: string;
  pool?: string;
  device?: string;
  shareID?: string | null;
  data?: unknown;
  networkData?: { interfaceName?: string; hardwareAddress?: string } | null;
}

/** A device as allocations and device statuses name it: driver/pool/device, and the share when shared. */
function deviceIdOf(device: { driver?: string; pool?: string; device?: string; shareID?: string | null }): string {
  const id = `${device.driver ?? ''}/${device.pool ?? ''}/${device.device ?? ''}`;
  return device.shareID == null ? id : `${id}/${device.shareID}`;
}

/**
 * How the reference prints a device ID in its errors: its fields are interned-string handles,
 * which JSON shows as empty objects, whatever the device.
 */
const PRINTED_DEVICE_ID = { Driver: {}, Pool: {}, Device: {}, ShareID: {} };

const NETWORK_INTERFACE_NAME_MAX_LENGTH = 256;
const NETWORK_HARDWARE_ADDRESS_MAX_LENGTH = 128;

/** What a driver reports about a device it prepared: one the claim was allocated, and data that is an object. */
function validateDeviceStatus(device: DeviceStatus, path: FieldPath, allocated: ReadonlySet<string>): FieldError[] {
  const errors = [
    ...validateDriverName(device.driver, path.child('driver')),
    ...poolNameErrors(device.pool ?? '', path.child('pool')),
    ...labelErrors(device.device ?? '', path.child('device')),
  ];
  if (!allocated.has(deviceIdOf(device)))
    errors.push(invalid(path, PRINTED_DEVICE_ID, 'must be an allocated device in the claim'));
  const data = device.data;
  if (data !== undefined && data !== null && (typeof data !== 'object' || Array.isArray(data)))
    errors.push(invalid(path.child('data'), '<value omitted>', 'must be a valid JSON object'));
  const network = device.networkData ?? {};
  if (goLen(network.interfaceName ?? '') > NETWORK_INTERFACE_NAME_MAX_LENGTH)
    errors.push(tooLong(path.child('networkData', 'interfaceName'), NETWORK_INTERFACE_NAME_MAX_LENGTH));
  if (goLen(network.hardwareAddress ?? '') > NETWORK_HARDWARE_ADDRESS_MAX_LENGTH)
    errors.push(tooLong(path.child('networkData', 'hardwareAddress'), NETWORK_HARDWARE_ADDRESS_MAX_LENGTH));
  return errors;
}

interface ClaimStatus {
  allocation?: Allocation | null;
  devices?: DeviceStatus[] | null;
  reservedFor?: { resource?: string; name?: string; uid?: string }[] | null;
}

interface AllocationResult {
  request?: string;
  driver?: string;
  pool?: string;
  device?: string;
  adminAccess?: boolean | null;
  tolerations?: Record<string, unknown>[] | null;
  bindingConditions?: string[] | null;
  bindingFailureConditions?: string[] | null;
  shareID?: string | null;
  consumedCapacity?: Record<string, string> | null;
}

/** An allocation as the reference prints an invalid one: its internal Go structs as JSON, nil as null. */
function goAllocation(allocation: Allocation): unknown {
  const results = allocation.devices?.results;
  const config = allocation.devices?.config;
  const opaque = (value: unknown) => {
    if (value == null) return null;
    const { driver, parameters } = value as { driver?: string; parameters?: unknown };
    return { Driver: driver ?? '', Parameters: parameters ?? null };
  };
  return {
    Devices: {
      Results:
        results == null
          ? null
          : results.map((result) => ({
              Request: result.request ?? '',
              Driver: result.driver ?? '',
              Pool: result.pool ?? '',
              Device: result.device ?? '',
              AdminAccess: result.adminAccess ?? null,
              Tolerations:
                result.tolerations?.map((toleration) => ({
                  Key: toleration.key ?? '',
                  Operator: toleration.operator ?? '',
                  Value: toleration.value ?? '',
                  Effect: toleration.effect ?? '',
                  TolerationSeconds: toleration.tolerationSeconds ?? null,
                })) ?? null,
              BindingConditions: result.bindingConditions ?? null,
              BindingFailureConditions: result.bindingFailureConditions ?? null,
              ShareID: result.shareID ?? null,
              ConsumedCapacity: result.consumedCapacity ?? null,
            })),
      // The device configuration is embedded in Go, so its `Opaque` sits beside `Source`.
      Config:
        config == null
          ? null
          : config.map((entry) => ({
              Source: entry.source ?? '',
              Requests: entry.requests ?? null,
              Opaque: opaque(entry.opaque),
            })),
    },
    NodeSelector:
      allocation.nodeSelector == null
        ? null
        : {
            NodeSelectorTerms:
              allocation.nodeSelector.nodeSelectorTerms == null
                ? null
                : goNodeSelectorTerms(allocation.nodeSelector.nodeSelectorTerms),
          },
    AllocationTimestamp: allocation.allocationTimestamp ?? null,
  };
}

/**
 * A claim's status as the scheduler writes it: an allocation whose results name the claim's
 * requests and real devices, kept as first written, and the consumers it is reserved for, only
 * once it is allocated. Checked when the status changes, as the reference checks it on status
 * writes alone (a main-resource update carries the stored status over unchanged).
 */
function validateClaimStatus(claim: KubeObject, old: KubeObject): FieldError[] {
  const status = (claim.status ?? {}) as ClaimStatus;
  const oldStatus = (old.status ?? {}) as ClaimStatus;
  if (deepEqual(status, oldStatus)) return [];
  const path = FieldPath.root('status');
  const errors: FieldError[] = [];
  const reservedFor = status.reservedFor ?? [];
  errors.push(
    ...uniqueItems(
      reservedFor,
      path.child('reservedFor'),
      MAX_RESERVED_FOR,
      (consumer, at) =>
        (['resource', 'name', 'uid'] as const)
          .filter((member) => (consumer[member] ?? '') === '')
          .map((member) => required(at.child(member))),
      (consumer) => ({ key: consumer.uid ?? '', field: 'uid' }),
    ),
  );
  const allocation = status.allocation ?? undefined;
  const allocated = new Set((allocation?.devices?.results ?? []).map(deviceIdOf));
  errors.push(
    ...uniqueItems(
      status.devices ?? [],
      path.child('devices'),
      -1,
      (device, at) => validateDeviceStatus(device, at, allocated),
      (device) => ({ key: deviceIdOf(device), field: 'deviceID' }),
      PRINTED_DEVICE_ID,
    ),
  );
  if (reservedFor.length > 0 && allocation === undefined)
    errors.push(forbidden(path.child('reservedFor'), 'may not be specified when `allocated` is not set'));
  const oldAllocation = oldStatus.allocation ?? undefined;
  if (allocation !== undefined && oldAllocation !== undefined)
    errors.push(
      ...immutableAs(
        'resource.AllocationResult',
        path.child('allocation'),
        allocation,
        oldAllocation,
        goAllocation(allocation),
      ),
    );
  else if (allocation !== undefined) {
    const names = requestNamesOf((claim.spec as { devices?: DeviceClaim } | undefined)?.devices);
    (allocation.devices?.results ?? []).forEach((result, i) => {
      const at = path.child('allocation', 'devices', 'results').index(i);
      errors.push(
        ...requestReferenceErrors(result.request ?? '', names, at.child('request')),
        ...validateDriverName(result.driver, at.child('driver')),
        ...poolNameErrors(result.pool ?? '', at.child('pool')),
        ...isDNS1123Label(result.device ?? '').map((message) =>
          invalid(at.child('device'), result.device ?? '', message),
        ),
      );
    });
  }
  return errors;
}

/**
 * A claim's spec is fixed once made: the scheduler allocates for it, in its status. Its selectors
 * are judged as stored ones, as the reference does, since an unchanged spec holds only those.
 */
export function validateResourceClaimUpdate(claim: KubeObject, old: KubeObject, context: GatedContext): FieldError[] {
  return [
    ...immutableAs(
      'resource.ResourceClaimSpec',
      FieldPath.root('spec'),
      claim.spec,
      old.spec,
      new GoValue(internalCompactJson('resource.ResourceClaimSpec', claim.spec ?? {})),
    ),
    ...validateClaimSpec(claim, selectorEnvironment(context.featureEnabled, true)),
    ...validateClaimStatus(claim, old),
  ];
}

/**
 * A template's spec is fixed once made, as the claims made from it are. The reference's update
 * checks the spec again after the immutability (its strategy checked the template as on a create
 * before), so what is wrong in it is reported on both sides of that error; the second time its
 * selectors are judged as stored ones.
 */
export function validateResourceClaimTemplateUpdate(
  template: KubeObject,
  old: KubeObject,
  context: GatedContext,
): FieldError[] {
  return [
    ...immutableAs(
      'resource.ResourceClaimTemplateSpec',
      FieldPath.root('spec'),
      template.spec,
      old.spec,
      new GoValue(internalCompactJson('resource.ResourceClaimTemplateSpec', template.spec ?? {})),
    ),
    ...validateTemplateSpec(template, selectorEnvironment(context.featureEnabled, true)),
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

interface DeviceTaintRuleSpec {
  deviceSelector?: {
    deviceClassName?: string | null;
    driver?: string | null;
    pool?: string | null;
    device?: string | null;
    selectors?: { cel?: { expression?: string } }[];
  } | null;
  taint?: NonNullable<Device['taints']>[number];
}

/**
 * A DeviceTaintRule (v1alpha3), on create and update alike: each name its selector gives is
 * what it names elsewhere (a class, a driver, a pool, a device), and its taint is a device's. On
 * update (`old` given) selectors unchanged from the stored ones count as stored.
 */
export function validateDeviceTaintRule(
  rule: KubeObject,
  featureEnabled: FeatureEnabled,
  old?: KubeObject,
): FieldError[] {
  const spec = (rule.spec ?? {}) as DeviceTaintRuleSpec;
  const oldSelector = (old?.spec as DeviceTaintRuleSpec | undefined)?.deviceSelector;
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  const selector = spec.deviceSelector;
  if (selector !== undefined && selector !== null) {
    const at = path.child('deviceSelector');
    const given = (value: string | null | undefined): value is string => typeof value === 'string';
    if (given(selector.deviceClassName))
      errors.push(...subdomainErrors(selector.deviceClassName, at.child('deviceClassName')));
    if (given(selector.driver)) errors.push(...validateDriverName(selector.driver, at.child('driver')));
    if (given(selector.pool)) errors.push(...poolNameErrors(selector.pool, at.child('pool')));
    if (given(selector.device)) errors.push(...labelErrors(selector.device, at.child('device')));
    const stored =
      oldSelector !== undefined &&
      oldSelector !== null &&
      deepEqual(selector.selectors ?? [], oldSelector.selectors ?? []);
    errors.push(
      ...validateSelectors(selector.selectors, at.child('selectors'), selectorEnvironment(featureEnabled, stored)),
    );
  }
  errors.push(...validateTaint(spec.taint ?? {}, path.child('taint')));
  return errors;
}
