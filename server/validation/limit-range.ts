/**
 * A LimitRange, after the reference's ValidateLimitRange: each item's type known and unique, its
 * resource names fit for the type, no defaults for pods, storage bounds for claims, then per
 * resource the amounts in order (min ≤ default request ≤ default ≤ max), a limit-to-request
 * ratio of at least 1 that the bounds can reach, and defaults equal to their requests for what
 * cannot be overcommitted.
 */
import type { KubeObject } from '../../api/objects';
import { canonicalQuantity, parseQuantity, Quantity, valueRoundedUp } from '../quantity/quantity';
import type { FieldError } from '../status/field-error';
import { duplicate, FieldPath, forbidden, invalid, required } from '../status/field-errors';
import { isQualifiedName } from './names';
import { validateContainerResourceName, validateResourceName } from './resource-names';
import { isOvercommitAllowed } from './resource-requirements';

const STANDARD_LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
const LIMIT_RESOURCE_LISTS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;
type LimitList = (typeof LIMIT_RESOURCE_LISTS)[number];
type LimitItem = { type?: string } & { [list in LimitList]?: Record<string, unknown> };
/** Go's resource.MaxMilliValue: above it, a milli value no longer fits an int64. */
const ONE = new Quantity(1n);
const MAX_MILLI_VALUE = ((1n << 63n) - 1n) / 1000n;

function validateLimitType(type: string, path: FieldPath): FieldError[] {
  const messages = isQualifiedName(type);
  if (messages.length > 0) return messages.map((message) => invalid(path, type, message));
  return type.includes('/') || STANDARD_LIMIT_TYPES.includes(type)
    ? []
    : [invalid(path, type, 'must be a standard limit type or fully qualified')];
}

/** An amount of one list, with the text the reference prints for it. */
interface Amount {
  readonly value: Quantity;
  readonly text: string;
}

function amountOf(limit: LimitItem, list: LimitList, name: string): Amount | undefined {
  const written = limit[list]?.[name];
  if (written === undefined) return undefined;
  const value = parseQuantity(String(written));
  return value === undefined ? undefined : { value, text: canonicalQuantity(String(written)) ?? String(written) };
}

/**
 * The most a limit can exceed a request within the bounds (max/min), and the ratio asked, in
 * milli units where all three fit them and in whole units otherwise, as the reference reckons.
 */
function ratioBounds(ratio: Quantity, min: Quantity, max: Quantity) {
  const whole = [ratio, min, max].map((quantity) => valueRoundedUp(quantity, 1n));
  const inMillis = whole.every((value) => value < MAX_MILLI_VALUE);
  const [ratioValue, minValue, maxValue] = inMillis ? [ratio, min, max].map((q) => valueRoundedUp(q, 1000n)) : whole;
  return {
    asked: inMillis ? Number(ratioValue) / 1000 : Number(ratioValue),
    reachable: Number(maxValue) / Number(minValue),
  };
}

/** Go's %f: six decimals, infinities signed. */
function goFloat(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (Number.isNaN(value)) return 'NaN';
  return value.toFixed(6);
}

function amountErrors(limit: LimitItem, name: string, at: FieldPath): FieldError[] {
  const [min, max, defaultLimit, defaultRequest, ratio] = (
    ['min', 'max', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const
  ).map((list) => amountOf(limit, list, name));
  const above = (a: Amount, b: Amount): boolean => a.value.compareTo(b.value) > 0;
  const errors: FieldError[] = [];
  const minPath = at.child('min').key(name);
  const defaultPath = at.child('default').key(name);
  const requestPath = at.child('defaultRequest').key(name);
  const ratioPath = at.child('maxLimitRequestRatio').key(name);
  if (min && max && above(min, max))
    errors.push(invalid(minPath, min.text, `min value ${min.text} is greater than max value ${max.text}`));
  if (min && defaultRequest && above(min, defaultRequest))
    errors.push(
      invalid(
        requestPath,
        defaultRequest.text,
        `min value ${min.text} is greater than default request value ${defaultRequest.text}`,
      ),
    );
  if (defaultRequest && max && above(defaultRequest, max))
    errors.push(
      invalid(
        requestPath,
        defaultRequest.text,
        `default request value ${defaultRequest.text} is greater than max value ${max.text}`,
      ),
    );
  if (defaultRequest && defaultLimit && above(defaultRequest, defaultLimit))
    errors.push(
      invalid(
        requestPath,
        defaultRequest.text,
        `default request value ${defaultRequest.text} is greater than default limit value ${defaultLimit.text}`,
      ),
    );
  // The reference prints the bound here, not the default.
  if (min && defaultLimit && above(min, defaultLimit))
    errors.push(
      invalid(defaultPath, min.text, `min value ${min.text} is greater than default value ${defaultLimit.text}`),
    );
  if (defaultLimit && max && above(defaultLimit, max))
    errors.push(
      invalid(defaultPath, max.text, `default value ${defaultLimit.text} is greater than max value ${max.text}`),
    );
  if (ratio !== undefined && ratio.value.compareTo(ONE) < 0)
    errors.push(invalid(ratioPath, ratio.text, `ratio ${ratio.text} is less than 1`));
  if (ratio !== undefined && min !== undefined && max !== undefined) {
    const { asked, reachable } = ratioBounds(ratio.value, min.value, max.value);
    if (asked > reachable)
      errors.push(
        invalid(ratioPath, ratio.text, `ratio ${ratio.text} is greater than max/min = ${goFloat(reachable)}`),
      );
  }
  if (
    !isOvercommitAllowed(name) &&
    defaultLimit !== undefined &&
    defaultRequest !== undefined &&
    defaultLimit.value.compareTo(defaultRequest.value) !== 0
  )
    errors.push(
      invalid(
        requestPath,
        defaultRequest.text,
        `default value ${defaultLimit.text} must equal to defaultRequest value ${defaultRequest.text} in ${name}`,
      ),
    );
  return errors;
}

function validateLimitItem(limit: LimitItem, at: FieldPath): FieldError[] {
  const type = limit.type ?? '';
  // Pods and containers are limited in what a container can ask for; other types in any resource.
  const checkName = type === 'Pod' || type === 'Container' ? validateContainerResourceName : validateResourceName;
  const errors: FieldError[] = [];
  const names = new Set<string>();
  const checkList = (list: LimitList) => {
    for (const name of Object.keys(limit[list] ?? {})) {
      errors.push(...checkName(name, at.child(list).key(name)));
      names.add(name);
    }
  };
  checkList('max');
  checkList('min');
  if (type === 'Pod') {
    // A pod has no defaults of its own to give: they are its containers'.
    if (Object.keys(limit.default ?? {}).length > 0)
      errors.push(forbidden(at.child('default'), "may not be specified when `type` is 'Pod'"));
    if (Object.keys(limit.defaultRequest ?? {}).length > 0)
      errors.push(forbidden(at.child('defaultRequest'), "may not be specified when `type` is 'Pod'"));
  } else {
    checkList('default');
    checkList('defaultRequest');
  }
  if (type === 'PersistentVolumeClaim' && limit.min?.storage === undefined && limit.max?.storage === undefined)
    errors.push(
      required(at.child('limits'), 'either minimum or maximum storage value is required, but neither was provided'),
    );
  checkList('maxLimitRequestRatio');
  const withoutDefaults: LimitItem =
    type === 'Pod' ? { ...limit, default: undefined, defaultRequest: undefined } : limit;
  for (const name of names) errors.push(...amountErrors(withoutDefaults, name, at));
  return errors;
}

export function validateLimitRange(limitRange: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const limits = (limitRange.spec as { limits?: LimitItem[] } | undefined)?.limits ?? [];
  const seen = new Set<string>();
  limits.forEach((limit, i) => {
    const at = FieldPath.root('spec', 'limits').index(i);
    const type = limit.type ?? '';
    errors.push(...validateLimitType(type, at.child('type')));
    if (seen.has(type)) errors.push(duplicate(at.child('type'), type));
    seen.add(type);
    errors.push(...validateLimitItem(limit, at));
  });
  return errors;
}
