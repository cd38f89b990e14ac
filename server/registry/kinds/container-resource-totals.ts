/**
 * What a pod's containers need at once, as the reference's AggregateContainerRequests and
 * AggregateContainerLimits reckon it (without a pod's status): the regular and sidecar
 * (restartable init) containers summed, raised to what any init container needs while it runs
 * beside the sidecars before it. Each amount keeps the text the reference writes for it: a
 * container's own as written, a sum in the format of the amount it started from. Pod-level
 * defaults and validation read it.
 */
import { isObject } from '../../json/value';
import { formatLike, parseQuantity, type Quantity } from '../../quantity/quantity';

type Json = Record<string, unknown>;

export interface Amount {
  readonly value: Quantity;
  readonly text: string;
  /** The text of the amount the sum started from, whose format Go's sum keeps. */
  readonly formatOf: string;
}

export type Totals = Map<string, Amount>;

const listOf = (spec: Json, member: string): Json[] =>
  Array.isArray(spec[member]) ? (spec[member] as unknown[]).filter(isObject) : [];

/** A container's own requests or limits, those that are quantities. */
export function containerAmounts(container: Json, list: 'requests' | 'limits'): Totals {
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

export function containerTotals(spec: Json, list: 'requests' | 'limits'): Totals {
  const totals: Totals = new Map();
  for (const container of listOf(spec, 'containers')) add(totals, containerAmounts(container, list));
  const sidecars: Totals = new Map();
  const initPeak: Totals = new Map();
  for (const container of listOf(spec, 'initContainers')) {
    const own = containerAmounts(container, list);
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
