/**
 * The EventRateLimit plugin: bounds how fast Events are written, so that a flood of them cannot
 * drown the server. Each configured limit keeps token buckets (`qps` tokens a second, holding at
 * most `burst`) under a key: one for the whole server, or one per namespace, per user, or per
 * event source and involved object, those last kept in a least-recently-used cache of
 * `cacheSize` buckets (4096 when unset), so a forgotten key starts afresh. A create or update of
 * an Event that finds any of its buckets empty is refused with 429; dry runs take no token.
 *
 * Configuration, in the file `--admission-control-config-file` names for the plugin (required):
 *   apiVersion: eventratelimit.admission.k8s.io/v1alpha1
 *   kind: Configuration
 *   limits:
 *   - {type: Namespace, qps: 50, burst: 100, cacheSize: 2000}
 */
import { tooManyRequests } from '../../status/catalogue';
import { aggregateFieldErrors, type FieldError } from '../../status/field-error';
import { FieldPath, invalid, notSupported } from '../../status/field-errors';
import { AdmissionConfigError } from '../config-error';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';
import { goAggregate } from '../../../api/go-json-syntax';

const API_VERSION = 'eventratelimit.admission.k8s.io/v1alpha1';
const FAILED = 'couldn\'t init admission plugin "EventRateLimit":';
const DEFAULT_CACHE_SIZE = 4096;

type LimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject';

export interface EventRateLimit {
  readonly type: LimitType;
  readonly qps: number;
  readonly burst: number;
  readonly cacheSize: number;
}

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** Each limit's bucket key for an Event write. */
const KEYS: Record<LimitType, (attributes: AdmissionAttributes) => string> = {
  Server: () => '',
  Namespace: (attributes) => attributes.namespace,
  User: (attributes) => attributes.userInfo.name,
  SourceAndObject: (attributes) => {
    const event = attributes.object ?? { metadata: {} };
    const source = record(event.source);
    const involved = record(event.involvedObject);
    return [
      source.component,
      source.host,
      involved.kind,
      involved.namespace,
      involved.name,
      involved.uid,
      involved.apiVersion,
    ]
      .map((part) => (typeof part === 'string' ? part : ''))
      .join('');
  },
};
const LIMIT_TYPES = Object.keys(KEYS) as LimitType[];

function int32(value: unknown, path: FieldPath): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31)
    throw new AdmissionConfigError(`${FAILED} ${path.toString()}: must be an int32, got ${JSON.stringify(value)}`);
  return value;
}

/** The plugin's part of the AdmissionConfiguration, checked as the reference does; it has none without one. */
export function eventRateLimitConfiguration(configuration: unknown): readonly EventRateLimit[] {
  const document = record(configuration);
  if (configuration !== undefined && (document.apiVersion !== API_VERSION || document.kind !== 'Configuration'))
    throw new AdmissionConfigError(`${FAILED} expected a Configuration of ${API_VERSION}`);
  const limitsPath = FieldPath.root('limits');
  const given = Array.isArray(document.limits) ? (document.limits as unknown[]) : [];
  const errors: FieldError[] = [];
  if (given.length === 0) errors.push(invalid(limitsPath, null, 'must not be empty'));
  const limits = given.map((entry, i): EventRateLimit => {
    const path = limitsPath.index(i);
    const fields = record(entry);
    const type = String(fields.type ?? '') as LimitType;
    const limit = {
      type,
      qps: int32(fields.qps, path.child('qps')),
      burst: int32(fields.burst, path.child('burst')),
      cacheSize: int32(fields.cacheSize, path.child('cacheSize')),
    };
    if (!LIMIT_TYPES.includes(type)) errors.push(notSupported(path.child('type'), type, LIMIT_TYPES));
    if (limit.burst <= 0) errors.push(invalid(path.child('burst'), limit.burst, 'must be positive'));
    if (limit.qps <= 0) errors.push(invalid(path.child('qps'), limit.qps, 'must be positive'));
    if (type !== 'Server' && limit.cacheSize < 0)
      errors.push(invalid(path.child('cacheSize'), limit.cacheSize, 'must not be negative'));
    return limit;
  });
  if (errors.length > 0) throw new AdmissionConfigError(`${FAILED} ${aggregateFieldErrors(errors)}`);
  return limits;
}

/** A token bucket that starts full and refills continuously. */
class TokenBucket {
  private tokens: number;
  private last = performance.now();

  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  tryTake(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** One limit's buckets by key: the one bucket of the server, else the `cacheSize` most recently used. */
function limitEnforcer(limit: EventRateLimit): (attributes: AdmissionAttributes) => string | undefined {
  const buckets = new Map<string, TokenBucket>();
  const capacity = limit.type === 'Server' ? 1 : limit.cacheSize || DEFAULT_CACHE_SIZE;
  const keyOf = KEYS[limit.type];
  return (attributes) => {
    const key = keyOf(attributes);
    let bucket = buckets.get(key);
    if (bucket === undefined) bucket = new TokenBucket(limit.qps, limit.burst);
    // Re-inserting makes the key the most recently used; the first key of the map is the least.
    buckets.delete(key);
    buckets.set(key, bucket);
    if (buckets.size > capacity) buckets.delete(buckets.keys().next().value!);
    return bucket.tryTake() ? undefined : `limit reached on type ${limit.type} for key ${key}`;
  };
}

export function eventRateLimitPlugin(limits: readonly EventRateLimit[]): AdmissionPlugin {
  const enforcers = limits.map(limitEnforcer);
  return {
    name: 'EventRateLimit',
    async validate(attributes) {
      if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return;
      if (attributes.kind.group !== '' || attributes.kind.kind !== 'Event' || attributes.dryRun) return;
      const refusals = enforcers.map((accept) => accept(attributes)).filter((refusal) => refusal !== undefined);
      if (refusals.length > 0) throw tooManyRequests(`Too many requests: ${goAggregate(refusals)}`);
    },
  };
}
