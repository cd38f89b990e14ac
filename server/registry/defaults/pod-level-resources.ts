/**
 * The pod-level resources a Pod (not a template) is given by default while PodLevelResources is
 * on, after its containers' own defaults, as the reference's defaultHugePagePodLimits and
 * defaultPodRequests give them, and only to a spec that already has some: huge page limits from
 * the containers' (not for a size the pod requests), then requests of CPU and memory from the
 * containers', and of any other supported resource with a pod-level limit, from that limit.
 */
import { isObject } from '../../json/value';
import { formatLike, parseQuantity, type Quantity } from '../../quantity/quantity';
import { items, type Json } from './fill';

/** An amount summed or chosen from the containers', with the text the reference writes for it. */
interface Amount {
  readonly value: Quantity;
  readonly text: string;
  /** The text of the amount the sum started from, whose format Go's sum keeps. */
  readonly formatOf: string;
}

const HUGE_PAGES_PREFIX = 'hugepages-';
const isHugePages = (name: string) => name.startsWith(HUGE_PAGES_PREFIX);
const isSupportedAtPodLevel = (name: string) => name === 'cpu' || name === 'memory' || isHugePages(name);
/** A native resource (no domain, or a kubernetes.io one) other than huge pages may be overcommitted. */
const allowsOvercommit = (name: string) =>
  (!name.includes('/') || name.includes('kubernetes.io/')) && !isHugePages(name);

type Totals = Map<string, Amount>;

function amountsOf(container: Json, list: 'requests' | 'limits'): Totals {
  const amounts: Totals = new Map();
  const resources = container.resources as Json | undefined;
  const listed = resources?.[list];
  if (!isObject(listed)) return amounts;
  for (const [name, text] of Object.entries(listed)) {
    const value = typeof text === 'string' || typeof text === 'number' ? parseQuantity(String(text)) : undefined;
    if (value !== undefined) amounts.set(name, { value, text: String(text), formatOf: String(text) });
  }
  return amounts;
}

function add(totals: Totals, amounts: Totals): void {
  for (const [name, amount] of amounts) {
    const total = totals.get(name);
    if (total === undefined) totals.set(name, amount);
    else {
      const value = total.value.add(amount.value);
      totals.set(name, { value, text: formatLike(value, total.formatOf), formatOf: total.formatOf });
    }
  }
}

function raise(totals: Totals, amounts: Totals): void {
  for (const [name, amount] of amounts) {
    const total = totals.get(name);
    if (total === undefined || amount.value.compareTo(total.value) > 0) totals.set(name, amount);
  }
}

/**
 * What the containers need at once, as the reference's AggregateContainerRequests and
 * AggregateContainerLimits reckon it: the regular and sidecar (restartable init) containers
 * summed, raised to what any init container needs while it runs beside the sidecars before it.
 */
function aggregate(spec: Json, list: 'requests' | 'limits'): Totals {
  const totals: Totals = new Map();
  for (const container of items(spec, 'containers')) add(totals, amountsOf(container, list));
  const sidecars: Totals = new Map();
  const initPeak: Totals = new Map();
  for (const container of items(spec, 'initContainers')) {
    const own = amountsOf(container, list);
    let running: Totals;
    if (container.restartPolicy === 'Always') {
      add(totals, own);
      add(sidecars, own);
      running = sidecars;
    } else {
      running = new Map();
      add(running, own);
      add(running, sidecars);
    }
    raise(initPeak, running);
  }
  raise(totals, initPeak);
  return totals;
}

const listAt = (resources: Json, list: 'requests' | 'limits') =>
  isObject(resources[list]) ? (resources[list] as Json) : undefined;

function defaultHugePageLimits(spec: Json, resources: Json): void {
  const requests = listAt(resources, 'requests');
  const limits = listAt(resources, 'limits') ?? {};
  if (Object.keys(limits).length === 0 && Object.keys(requests ?? {}).length === 0) return;
  for (const [name, amount] of aggregate(spec, 'limits'))
    if (isHugePages(name) && requests?.[name] === undefined && limits[name] === undefined) limits[name] = amount.text;
  if (Object.keys(limits).length > 0) resources.limits = limits;
}

function defaultRequests(spec: Json, resources: Json): void {
  const limits = listAt(resources, 'limits');
  if (limits === undefined || Object.keys(limits).length === 0) return;
  const requests = listAt(resources, 'requests') ?? {};
  for (const [name, amount] of aggregate(spec, 'requests'))
    if (requests[name] === undefined && isSupportedAtPodLevel(name) && allowsOvercommit(name))
      requests[name] = amount.text;
  for (const [name, limit] of Object.entries(limits))
    if (requests[name] === undefined && isSupportedAtPodLevel(name)) requests[name] = limit;
  if (Object.keys(requests).length > 0) resources.requests = requests;
}

/** A Pod's spec, its containers' requests already defaulted. */
export function defaultPodLevelResources(spec: Json): void {
  const resources = spec.resources;
  if (!isObject(resources)) return;
  defaultHugePageLimits(spec, resources);
  defaultRequests(spec, resources);
}
