/**
 * The amounts of compute resources, after the reference's validateResourceRequirements and the
 * quantity rules it shares with quotas: never negative, whole numbers for counted and extended
 * resources, huge pages in whole pages, a request no higher than its limit (equal to it, and the
 * limit set, for what cannot be overcommitted: extended resources and huge pages), and huge pages
 * only beside cpu or memory. Claims are judged elsewhere.
 */
import { canonicalQuantity, parseQuantity, valueRoundedUp, type Quantity } from '../quantity/quantity';
import type { FieldError } from '../status/field-error';
import { forbidden, invalid, required, type FieldPath } from '../status/field-errors';
import { isQualifiedName } from './names';
import { HUGE_PAGES_PREFIX, isHugePages } from './resource-names';

type ResourceList = Record<string, unknown>;

/** Counts of objects: what a quota counts one by one. */
const INTEGER_RESOURCES = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);
const QOS_RESOURCES = new Set(['cpu', 'memory']);
const ZERO = parseQuantity('0') as Quantity;

/** Names without a domain, or in a kubernetes.io one, are the platform's own. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** A resource a device plugin offers: not native, and a valid quota name once `requests.` is put before it. */
function isExtendedResource(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** Only native resources other than huge pages may be requested below their limit. */
export function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePages(name);
}

function isIntegerResource(name: string): boolean {
  return INTEGER_RESOURCES.has(name) || isExtendedResource(name);
}

/** The text the reference prints for an amount: its canonical form, or as sent when it is none. */
function textOf(written: unknown): string {
  return canonicalQuantity(String(written)) ?? String(written);
}

function quantityOf(written: unknown): Quantity | undefined {
  return typeof written === 'string' || typeof written === 'number' ? parseQuantity(String(written)) : undefined;
}

/** Whether a huge page amount is a whole number of pages of the size its name gives. */
export function isHugePageAmountDivisible(name: string, amount: Quantity): boolean {
  const pageSize = parseQuantity(name.slice(HUGE_PAGES_PREFIX.length));
  if (pageSize === undefined || pageSize.compareTo(ZERO) <= 0 || valueRoundedUp(pageSize, 1000n) % 1000n !== 0n)
    return false;
  return valueRoundedUp(amount, 1n) % valueRoundedUp(pageSize, 1n) === 0n;
}

/** Whether any huge page amount of `list` is not a whole number of pages. */
function hasIndivisibleHugePages(list: unknown): boolean {
  if (typeof list !== 'object' || list === null) return false;
  return Object.entries(list).some(([name, written]) => {
    const amount = quantityOf(written);
    return isHugePages(name) && amount !== undefined && !isHugePageAmountDivisible(name, amount);
  });
}

/** Whether a stored pod spec has huge pages not in whole pages, in any container or its overhead. */
export function usesIndivisibleHugePages(spec: Record<string, unknown> | undefined): boolean {
  const containers = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) =>
    Array.isArray(spec?.[list]) ? (spec[list] as { resources?: ResourceRequirements | null }[]) : [],
  );
  return (
    containers.some(
      (container) =>
        hasIndivisibleHugePages(container?.resources?.limits) ||
        hasIndivisibleHugePages(container?.resources?.requests),
    ) || hasIndivisibleHugePages(spec?.overhead)
  );
}

/** An amount not below zero; the reference shows a negative one in its canonical form. */
export function validateNonnegativeQuantity(written: unknown, path: FieldPath): FieldError[] {
  const amount = quantityOf(written);
  if (amount === undefined || amount.compareTo(ZERO) >= 0) return [];
  return [invalid(path, textOf(written), 'must be greater than or equal to 0')];
}

/** An amount of the named resource: never negative, and whole where the resource is counted. */
export function validateResourceQuantityValue(name: string, written: unknown, path: FieldPath): FieldError[] {
  const amount = quantityOf(written);
  if (amount === undefined) return [];
  const errors = validateNonnegativeQuantity(written, path);
  if (isIntegerResource(name) && valueRoundedUp(amount, 1000n) % 1000n !== 0n)
    errors.push(invalid(path, textOf(written), 'must be an integer'));
  return errors;
}

export interface ResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
}

export interface ResourceRequirementsRules {
  /** The name rule of the place the lists appear (a container's, the pod level's). */
  readonly checkName: (name: string, path: FieldPath) => FieldError[];
  /** An update keeps what an older server let in: huge pages not in whole pages. */
  readonly allowIndivisibleHugePages: boolean;
}

function hugePageErrors(name: string, written: unknown, path: FieldPath, rules: ResourceRequirementsRules) {
  const amount = quantityOf(written);
  if (rules.allowIndivisibleHugePages || amount === undefined || isHugePageAmountDivisible(name, amount)) return [];
  return [invalid(path, textOf(written), `${textOf(written)} is not positive integer multiple of ${name}`)];
}

/** A request against its limit; the reference reports both at the requests (or limits) list, not the name. */
function requestAgainstLimit(name: string, request: unknown, limits: ResourceList, path: FieldPath): FieldError[] {
  const limitsPath = path.child('limits');
  const requestsPath = path.child('requests');
  if (!Object.hasOwn(limits, name))
    return isOvercommitAllowed(name)
      ? []
      : [required(limitsPath, 'Limit must be set for non overcommitable resources')];
  const [requested, limit] = [quantityOf(request), quantityOf(limits[name])];
  if (requested === undefined || limit === undefined) return [];
  const order = requested.compareTo(limit);
  if (order !== 0 && !isOvercommitAllowed(name))
    return [invalid(requestsPath, textOf(request), `must be equal to ${name} limit of ${textOf(limits[name])}`)];
  if (order > 0)
    return [
      invalid(requestsPath, textOf(request), `must be less than or equal to ${name} limit of ${textOf(limits[name])}`),
    ];
  return [];
}

/** A `{limits, requests}` pair: the limits' names and amounts, then the requests', then huge pages' company. */
export function validateResourceRequirements(
  requirements: ResourceRequirements | null | undefined,
  path: FieldPath,
  rules: ResourceRequirementsRules,
): FieldError[] {
  const limits = requirements?.limits ?? {};
  const requests = requirements?.requests ?? {};
  const errors: FieldError[] = [];
  for (const [name, written] of Object.entries(limits)) {
    const at = path.child('limits').key(name);
    errors.push(...rules.checkName(name, at), ...validateResourceQuantityValue(name, written, at));
    if (isHugePages(name)) errors.push(...hugePageErrors(name, written, at, rules));
  }
  for (const [name, written] of Object.entries(requests)) {
    const at = path.child('requests').key(name);
    errors.push(...rules.checkName(name, at), ...validateResourceQuantityValue(name, written, at));
    errors.push(...requestAgainstLimit(name, written, limits, path));
    if (isHugePages(name)) errors.push(...hugePageErrors(name, written, at, rules));
  }
  const names = [...Object.keys(limits), ...Object.keys(requests)];
  if (names.some(isHugePages) && !names.some((name) => QOS_RESOURCES.has(name)))
    errors.push(forbidden(path, 'HugePages require cpu or memory'));
  return errors;
}
