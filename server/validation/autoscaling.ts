/** autoscaling/v2 HorizontalPodAutoscaler rules (run on the stored v2 form). */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import type { WriteContext } from '../registry/types';
import { parseQuantity } from '../quantity/quantity';
import { FieldPath, forbidden, invalid, notSupported, required } from '../status/field-errors';
import { isDNS1123Label, isValidPathSegmentName } from './names';
import { validateNonnegative } from './object-meta';

interface MetricTarget {
  type?: string;
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

/** The members of every metric source, each optional; which ones a source has is the schema's business. */
interface MetricSource {
  describedObject?: { kind?: string; name?: string; apiVersion?: string };
  metric?: { name?: string };
  name?: string;
  container?: string;
  target?: MetricTarget;
}

type MetricSourceName = 'object' | 'external' | 'pods' | 'resource' | 'containerResource';

type MetricSpec = { type?: string } & { [source in MetricSourceName]?: MetricSource };

interface ScalingRules {
  stabilizationWindowSeconds?: number;
  tolerance?: string;
  selectPolicy?: string;
  policies?: { type?: string; value?: number; periodSeconds?: number }[];
}

interface HPASpec {
  scaleTargetRef?: { kind?: string; name?: string; apiVersion?: string };
  minReplicas?: number;
  maxReplicas?: number;
  metrics?: MetricSpec[];
  behavior?: { scaleUp?: ScalingRules; scaleDown?: ScalingRules };
}

/** The metric source member each metric type names, in the order the reference checks them. */
const METRIC_SOURCES: readonly (readonly [MetricSourceName, string])[] = [
  ['object', 'Object'],
  ['external', 'External'],
  ['pods', 'Pods'],
  ['resource', 'Resource'],
  ['containerResource', 'ContainerResource'],
];
const METRIC_TYPES = METRIC_SOURCES.map(([, type]) => type).sort();
const TARGET_TYPES = ['Utilization', 'Value', 'AverageValue'];
const POLICY_TYPES = ['Percent', 'Pods'];
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

function isPositiveQuantity(text: string): boolean {
  const quantity = parseQuantity(text);
  return quantity !== undefined && quantity.numerator > 0n;
}

function validateMetricTarget(target: MetricTarget, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!target.type) errors.push(required(path.child('type'), 'must specify a metric target type'));
  if (!TARGET_TYPES.includes(target.type ?? ''))
    errors.push(invalid(path.child('type'), target.type ?? '', 'must be either Utilization, Value, or AverageValue'));
  if (target.value !== undefined && !isPositiveQuantity(target.value))
    errors.push(invalid(path.child('value'), target.value, 'must be positive'));
  if (target.averageValue !== undefined && !isPositiveQuantity(target.averageValue))
    errors.push(invalid(path.child('averageValue'), target.averageValue, 'must be positive'));
  if (target.averageUtilization !== undefined && target.averageUtilization < 1) {
    errors.push(invalid(path.child('averageUtilization'), target.averageUtilization, 'must be greater than 0'));
  }
  return errors;
}

function validateMetricName(name: string | undefined, path: FieldPath): FieldError[] {
  if (!name) return [required(path, 'must specify a metric name')];
  return isValidPathSegmentName(name).map((message) => invalid(path, name, message));
}

/** How an object reference's apiVersion is judged (the reference's CrossVersionObjectReferenceValidationOptions). */
interface APIVersionRule {
  /** A core kind's reference may name no group. */
  readonly allowEmptyGroup: boolean;
  /** Not judged at all: an update that keeps what the stored object had. */
  readonly allowInvalid: boolean;
}

/** The problem of an apiVersion, as the reference's ValidateAPIVersion words it; undefined when none. */
function apiVersionProblem(apiVersion: string, rule: APIVersionRule): string | undefined {
  if (rule.allowInvalid || apiVersion === '/') return undefined;
  const slashes = apiVersion.split('/').length - 1;
  if (slashes > 1) return `unexpected GroupVersion string: ${apiVersion}`;
  const group = slashes === 1 ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return !rule.allowEmptyGroup && group === '' ? 'apiVersion must specify API group' : undefined;
}

function validateObjectReference(
  reference: { kind?: string; name?: string; apiVersion?: string } | undefined,
  path: FieldPath,
  rule: APIVersionRule,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const member of ['kind', 'name'] as const) {
    const value = reference?.[member];
    if (!value) errors.push(required(path.child(member)));
    else for (const message of isValidPathSegmentName(value)) errors.push(invalid(path.child(member), value, message));
  }
  const apiVersion = reference?.apiVersion ?? '';
  const problem = apiVersionProblem(apiVersion, rule);
  if (problem !== undefined) errors.push(invalid(path.child('apiVersion'), apiVersion, problem));
  return errors;
}

/** The rules of one metric source, by its kind. */
function validateMetricSource(
  name: MetricSourceName,
  source: MetricSource,
  path: FieldPath,
  objectRule: APIVersionRule,
): FieldError[] {
  const target = source.target ?? {};
  const targetPath = path.child('target');
  const errors: FieldError[] = [];
  switch (name) {
    case 'object':
      errors.push(...validateObjectReference(source.describedObject, path.child('describedObject'), objectRule));
      errors.push(
        ...validateMetricName(source.metric?.name, path.child('metric', 'name')),
        ...validateMetricTarget(target, targetPath),
      );
      if (target.value === undefined && target.averageValue === undefined)
        errors.push(required(targetPath.child('averageValue'), 'must set either a target value or averageValue'));
      break;
    case 'external':
      errors.push(
        ...validateMetricName(source.metric?.name, path.child('metric', 'name')),
        ...validateMetricTarget(target, targetPath),
      );
      if (target.value === undefined && target.averageValue === undefined) {
        errors.push(
          required(targetPath.child('averageValue'), 'must set either a target value for metric or a per-pod target'),
        );
      }
      if (target.value !== undefined && target.averageValue !== undefined) {
        errors.push(
          forbidden(targetPath.child('value'), 'may not set both a target value for metric and a per-pod target'),
        );
      }
      break;
    case 'pods':
      errors.push(
        ...validateMetricName(source.metric?.name, path.child('metric', 'name')),
        ...validateMetricTarget(target, targetPath),
      );
      if (target.averageValue === undefined)
        errors.push(required(targetPath.child('averageValue'), 'must specify a positive target averageValue'));
      break;
    case 'resource':
    case 'containerResource':
      if (!source.name) errors.push(required(path.child('name'), 'must specify a resource name'));
      if (name === 'containerResource') {
        if (!source.container) errors.push(required(path.child('container'), 'must specify a container'));
        else
          for (const message of isDNS1123Label(source.container))
            errors.push(invalid(path.child('container'), source.container, message));
      }
      errors.push(...validateMetricTarget(target, targetPath));
      if (target.averageUtilization === undefined && target.averageValue === undefined) {
        errors.push(
          required(
            targetPath.child('averageUtilization'),
            'must set either a target raw value or a target utilization',
          ),
        );
      }
      if (target.averageUtilization !== undefined && target.averageValue !== undefined) {
        errors.push(
          forbidden(targetPath.child('averageValue'), 'may not set both a target raw value and a target utilization'),
        );
      }
      break;
  }
  return errors;
}

/** One metric: a known type, and exactly the source that type names (only the first present is judged). */
function validateMetricSpec(metric: MetricSpec, path: FieldPath, objectRule: APIVersionRule): FieldError[] {
  const errors: FieldError[] = [];
  const type = metric.type ?? '';
  if (type === '') errors.push(required(path.child('type'), 'must specify a metric source type'));
  if (!METRIC_TYPES.includes(type)) errors.push(notSupported(path.child('type'), type, METRIC_TYPES));
  const present = METRIC_SOURCES.filter(([name]) => metric[name] !== undefined).map(([name]) => name);
  if (present.length > 0)
    errors.push(...validateMetricSource(present[0], metric[present[0]]!, path.child(present[0]), objectRule));
  const expected = METRIC_SOURCES.find(([, sourceType]) => sourceType === type)?.[0];
  // The reference's switch over the type reports an unknown one a second time: its causes list
  // both, its message (an aggregate, which drops repeats) one.
  if (expected === undefined) errors.push(notSupported(path.child('type'), type, METRIC_TYPES));
  else if (metric[expected] === undefined)
    errors.push(required(path.child(expected), 'must populate information for the given metric source'));
  if (present.length !== 1) {
    for (const name of present)
      if (name !== expected) errors.push(forbidden(path.child(name), 'must populate the given metric source only'));
  }
  return errors;
}

function validateScalingRules(rules: ScalingRules | undefined, path: FieldPath): FieldError[] {
  if (rules === undefined) return [];
  const errors: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (window !== undefined && window < 0)
    errors.push(invalid(path.child('stabilizationWindowSeconds'), window, 'must be greater than or equal to zero'));
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errors.push(
      invalid(
        path.child('stabilizationWindowSeconds'),
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  }
  if (rules.selectPolicy !== undefined && !SELECT_POLICIES.includes(rules.selectPolicy))
    errors.push(notSupported(path.child('selectPolicy'), rules.selectPolicy, SELECT_POLICIES));
  const policies = rules.policies ?? [];
  if (policies.length === 0) errors.push(required(path.child('policies'), 'must specify at least one Policy'));
  policies.forEach((policy, i) => {
    const at = path.child('policies').index(i);
    if (!POLICY_TYPES.includes(policy.type ?? ''))
      errors.push(notSupported(at.child('type'), policy.type ?? '', POLICY_TYPES));
    if ((policy.value ?? 0) <= 0)
      errors.push(invalid(at.child('value'), policy.value ?? 0, 'must be greater than zero'));
    const period = policy.periodSeconds ?? 0;
    if (period <= 0) errors.push(invalid(at.child('periodSeconds'), period, 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS)
      errors.push(invalid(at.child('periodSeconds'), period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  if (typeof rules.tolerance === 'string' && (parseQuantity(rules.tolerance)?.numerator ?? 0n) < 0n)
    errors.push(invalid(path.child('tolerance'), rules.tolerance, 'must be greater than or equal to 0'));
  return errors;
}

/** The least minReplicas: 0 while HPAScaleToZero is on or the stored autoscaler already scales to zero. */
function minReplicasLowerBound(old: KubeObject | undefined, context: WriteContext): number {
  const oldScalesToZero = (old?.spec as HPASpec | undefined)?.minReplicas === 0;
  return context.featureEnabled('HPAScaleToZero') || oldScalesToZero ? 0 : 1;
}

export function validateHorizontalPodAutoscaler(hpa: KubeObject, context: WriteContext): FieldError[] {
  return validateHorizontalPodAutoscalerSpec(hpa, undefined, minReplicasLowerBound(undefined, context));
}

export function validateHorizontalPodAutoscalerUpdate(
  hpa: KubeObject,
  old: KubeObject,
  context: WriteContext,
): FieldError[] {
  return validateHorizontalPodAutoscalerSpec(hpa, old, minReplicasLowerBound(old, context));
}

/** A status write: only the replica counts are judged (the spec is the stored one). */
export function validateHorizontalPodAutoscalerStatusUpdate(hpa: KubeObject): FieldError[] {
  const status = (hpa.status ?? {}) as { currentReplicas?: number; desiredReplicas?: number };
  return [
    ...validateNonnegative(status.currentReplicas, FieldPath.root('status', 'currentReplicas')),
    ...validateNonnegative(status.desiredReplicas, FieldPath.root('status', 'desiredReplicas')),
  ];
}

/**
 * How the references' apiVersions are judged, as the reference's strategy sets it: the target
 * needs a group (but a ReplicationController's) unless an update keeps its kind and apiVersion;
 * an Object metric's object may be in the core group, and is not judged when the stored
 * autoscaler already had one that fails.
 */
function apiVersionRules(
  spec: HPASpec,
  old: KubeObject | undefined,
): { target: APIVersionRule; object: APIVersionRule } {
  const oldSpec = old === undefined ? undefined : ((old.spec as HPASpec | undefined) ?? {});
  const keptTarget =
    oldSpec !== undefined &&
    (oldSpec.scaleTargetRef?.apiVersion ?? '') === (spec.scaleTargetRef?.apiVersion ?? '') &&
    (oldSpec.scaleTargetRef?.kind ?? '') === (spec.scaleTargetRef?.kind ?? '');
  const target = {
    allowInvalid: keptTarget,
    allowEmptyGroup: !keptTarget && spec.scaleTargetRef?.kind === 'ReplicationController',
  };
  const strictObject = { allowInvalid: false, allowEmptyGroup: true };
  const oldObjectInvalid = (oldSpec?.metrics ?? []).some(
    (metric) =>
      metric.type === 'Object' &&
      metric.object !== undefined &&
      apiVersionProblem(metric.object.describedObject?.apiVersion ?? '', strictObject) !== undefined,
  );
  return { target, object: { ...strictObject, allowInvalid: oldObjectInvalid } };
}

function validateHorizontalPodAutoscalerSpec(
  hpa: KubeObject,
  old: KubeObject | undefined,
  lowerBound: number,
): FieldError[] {
  const spec = (hpa.spec as HPASpec | undefined) ?? {};
  const rules = apiVersionRules(spec, old);
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  // The replica bounds first, each rule on its own, then the target: the reference's order.
  const minReplicas = spec.minReplicas ?? 1;
  const maxReplicas = spec.maxReplicas ?? 0;
  if (minReplicas < lowerBound)
    errors.push(invalid(path.child('minReplicas'), minReplicas, `must be greater than or equal to ${lowerBound}`));
  if (maxReplicas < 1) errors.push(invalid(path.child('maxReplicas'), maxReplicas, 'must be greater than 0'));
  if (maxReplicas < minReplicas)
    errors.push(invalid(path.child('maxReplicas'), maxReplicas, 'must be greater than or equal to `minReplicas`'));
  errors.push(...validateObjectReference(spec.scaleTargetRef, path.child('scaleTargetRef'), rules.target));
  const metrics = spec.metrics ?? [];
  metrics.forEach((metric, i) =>
    errors.push(...validateMetricSpec(metric, path.child('metrics').index(i), rules.object)),
  );
  if (minReplicas === 0 && !metrics.some((metric) => metric.type === 'Object' || metric.type === 'External'))
    errors.push(
      forbidden(
        path.child('metrics'),
        'must specify at least one Object or External metric to support scaling to zero replicas',
      ),
    );
  errors.push(...validateScalingRules(spec.behavior?.scaleUp, path.child('behavior', 'scaleUp')));
  errors.push(...validateScalingRules(spec.behavior?.scaleDown, path.child('behavior', 'scaleDown')));
  return errors;
}
