/**
 * The LimitRanger plugin: the namespace's LimitRanges give a new pod's containers their default
 * requests and limits (`defaultRequest`, `default`; noted in the `kubernetes.io/limit-ranger`
 * annotation), and refuse pods and claims outside their `min`, `max` and
 * `maxLimitRequestRatio`, per Container, per Pod and per PersistentVolumeClaim, with the
 * reference's messages (several at once as `[a, b]`).
 */
import { refusedName } from '../refused-name';
import type { KubeObject } from '../../../api/objects';
import { forbidden } from '../../status/catalogue';
import { amountOf, formatAmount, podTotals, type Amount } from '../../quota/usage';
import { listCached, writes, type StorageOf } from '../lookup';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';
import { goAggregate } from '../../../api/go-json-syntax';

type Fields = Record<string, unknown>;
type Amounts = Map<string, Amount>;

const ANNOTATION = 'kubernetes.io/limit-ranger';

function record(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

function amounts(value: unknown): Amounts {
  const result: Amounts = new Map();
  for (const [name, text] of Object.entries(record(value))) {
    const amount = amountOf(text);
    if (amount !== undefined) result.set(name, amount);
  }
  return result;
}

const sorted = <T>(map: Map<string, T>): [string, T][] => [...map].sort(([a], [b]) => (a < b ? -1 : 1));

interface LimitItem {
  readonly type: string;
  readonly min: Amounts;
  readonly max: Amounts;
  readonly defaultLimits: Fields;
  readonly defaultRequests: Fields;
  readonly maxLimitRequestRatio: Amounts;
}

async function limitItems(storageOf: StorageOf, namespace: string): Promise<LimitItem[]> {
  const items = await listCached(storageOf('', 'limitranges'), namespace);
  return items.flatMap((range: KubeObject) => {
    const limits = record(range.spec).limits;
    return (Array.isArray(limits) ? limits : []).map(record).map((item) => ({
      type: String(item.type),
      min: amounts(item.min),
      max: amounts(item.max),
      defaultLimits: record(item.default),
      defaultRequests: record(item.defaultRequest),
      maxLimitRequestRatio: amounts(item.maxLimitRequestRatio),
    }));
  });
}

interface ContainerRef {
  readonly label: string;
  readonly container: Fields;
}

function containersOf(pod: KubeObject): ContainerRef[] {
  const spec = record(pod.spec);
  const list = (field: string, label: string) =>
    (Array.isArray(spec[field]) ? (spec[field] as unknown[]).map(record) : []).map((container) => ({
      label: `${label} ${String(container.name)}`,
      container,
    }));
  return [...list('initContainers', 'init container'), ...list('containers', 'container')];
}

/** Fills unset requests and limits from the Container items; answers the annotation's notes. */
function applyDefaults(pod: KubeObject, items: readonly LimitItem[]): string[] {
  const notes: string[] = [];
  const defaults = items.filter((item) => item.type === 'Container');
  for (const { label, container } of containersOf(pod)) {
    const resources = (container.resources = record(container.resources));
    const setRequests: string[] = [];
    const setLimits: string[] = [];
    for (const item of defaults) {
      for (const [field, source, set] of [
        ['requests', item.defaultRequests, setRequests],
        ['limits', item.defaultLimits, setLimits],
      ] as const) {
        for (const [name, value] of Object.entries(source).sort(([a], [b]) => (a < b ? -1 : 1))) {
          const target = record(resources[field]);
          if (name in target) continue;
          resources[field] = { ...target, [name]: value };
          set.push(name);
        }
      }
    }
    if (setRequests.length > 0) notes.push(`${setRequests.join(', ')} request for ${label}`);
    if (setLimits.length > 0) notes.push(`${setLimits.join(', ')} limit for ${label}`);
  }
  return notes;
}

/** The reference's min, max and ratio checks of one subject (a container, a pod, a claim); one message per bound at most. */
function violations(
  item: LimitItem,
  subject: string,
  requests: Amounts,
  limits: Amounts,
  maxOnRequests = false,
): string[] {
  const found: string[] = [];
  for (const [name, min] of sorted(item.min)) {
    const request = requests.get(name);
    const limit = limits.get(name);
    const floor = formatAmount(min);
    if (request === undefined) found.push(`minimum ${name} usage per ${subject} is ${floor}.  No request is specified`);
    else if (request.value.compareTo(min.value) < 0)
      found.push(`minimum ${name} usage per ${subject} is ${floor}, but request is ${formatAmount(request)}`);
    else if (limit !== undefined && limit.value.compareTo(min.value) < 0)
      found.push(`minimum ${name} usage per ${subject} is ${floor}, but limit is ${formatAmount(limit)}`);
  }
  for (const [name, max] of sorted(item.max)) {
    const request = requests.get(name);
    const limit = maxOnRequests ? request : limits.get(name);
    const ceiling = formatAmount(max);
    const measured = maxOnRequests ? 'request' : 'limit';
    if (limit === undefined)
      found.push(`maximum ${name} usage per ${subject} is ${ceiling}.  No ${measured} is specified`);
    else if (limit.value.compareTo(max.value) > 0)
      found.push(`maximum ${name} usage per ${subject} is ${ceiling}, but ${measured} is ${formatAmount(limit)}`);
    else if (!maxOnRequests && request !== undefined && request.value.compareTo(max.value) > 0)
      found.push(`maximum ${name} usage per ${subject} is ${ceiling}, but request is ${formatAmount(request)}`);
  }
  for (const [name, ratio] of sorted(item.maxLimitRequestRatio)) {
    const request = requests.get(name);
    const limit = limits.get(name);
    const most = formatAmount(ratio);
    if (request === undefined || request.value.numerator === 0n)
      found.push(
        `${name} max limit to request ratio per ${subject} is ${most}, but no request is specified or request is 0`,
      );
    else if (limit === undefined)
      found.push(`${name} max limit to request ratio per ${subject} is ${most}, but no limit is specified`);
    else {
      const actual =
        (Number(limit.value.numerator) * Number(request.value.denominator)) /
        (Number(limit.value.denominator) * Number(request.value.numerator));
      const allowed = Number(ratio.value.numerator) / Number(ratio.value.denominator);
      if (actual > allowed)
        found.push(
          `${name} max limit to request ratio per ${subject} is ${most}, but provided ratio is ${actual.toFixed(6)}`,
        );
    }
  }
  return found;
}

function podViolations(pod: KubeObject, items: readonly LimitItem[]): string[] {
  const found: string[] = [];
  for (const item of items) {
    if (item.type === 'Container') {
      for (const { container } of containersOf(pod)) {
        const resources = record(container.resources);
        found.push(...violations(item, 'Container', amounts(resources.requests), amounts(resources.limits)));
      }
    } else if (item.type === 'Pod') {
      found.push(
        ...violations(item, 'Pod', podTotals(record(pod.spec), 'requests'), podTotals(record(pod.spec), 'limits')),
      );
    }
  }
  return found;
}

function claimViolations(claim: KubeObject, items: readonly LimitItem[]): string[] {
  const resources = record(record(claim.spec).resources);
  return items
    .filter((item) => item.type === 'PersistentVolumeClaim')
    .flatMap((item) =>
      violations(
        { ...item, maxLimitRequestRatio: new Map() },
        'PersistentVolumeClaim',
        amounts(resources.requests),
        amounts(resources.limits),
        true,
      ),
    );
}

function refuse(attributes: AdmissionAttributes, found: readonly string[]): void {
  if (found.length === 0) return;
  throw forbidden(attributes.resource, refusedName(attributes), goAggregate(found));
}

export function limitRangerPlugin(storageOf: StorageOf): AdmissionPlugin {
  const applies = (attributes: AdmissionAttributes, resource: string) =>
    attributes.namespace !== '' && attributes.object !== undefined && writes(attributes, '', resource);
  return {
    name: 'LimitRanger',
    async admit(attributes) {
      if (attributes.operation !== 'CREATE' || !applies(attributes, 'pods')) return;
      const items = await limitItems(storageOf, attributes.namespace);
      if (items.length === 0) return;
      const notes = applyDefaults(attributes.object!, items);
      if (notes.length === 0) return;
      const metadata = attributes.object!.metadata;
      metadata.annotations = { ...metadata.annotations, [ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
    },
    async validate(attributes) {
      if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return;
      // Pods only on create, as the reference: their containers' resources cannot change later,
      // and a pod older than the LimitRange must stay updatable.
      const isPod = attributes.operation === 'CREATE' && applies(attributes, 'pods');
      if (!isPod && !applies(attributes, 'persistentvolumeclaims')) return;
      const items = await limitItems(storageOf, attributes.namespace);
      if (items.length === 0) return;
      refuse(attributes, isPod ? podViolations(attributes.object!, items) : claimViolations(attributes.object!, items));
    },
  };
}
