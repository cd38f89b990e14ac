/**
 * HorizontalPodAutoscaler conversion between autoscaling/v2 (stored, preferred) and
 * autoscaling/v1, by the reference's rules: v1 carries only a CPU utilization target, so the
 * v2-only parts travel in annotations on the v1 object and come back when a v1 object is
 * written:
 *   autoscaling.alpha.kubernetes.io/metrics          spec.metrics other than CPU utilization (v1 MetricSpec form)
 *   autoscaling.alpha.kubernetes.io/current-metrics  status.currentMetrics (v1 MetricStatus form)
 *   autoscaling.alpha.kubernetes.io/behavior         spec.behavior (the reference marshals its internal type: Go field names)
 *   autoscaling.alpha.kubernetes.io/conditions       status.conditions
 * A v1 object with no metrics at all gets the implicit CPU target of 80%.
 */
import type { KubeObject } from '../../../api/objects';
import { groupVersionString, type GroupVersion } from '../../../api/identity';

type Json = Record<string, unknown>;

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
const ROUND_TRIP_ANNOTATIONS = [
  METRIC_SPECS_ANNOTATION,
  METRIC_STATUSES_ANNOTATION,
  BEHAVIOR_ANNOTATION,
  CONDITIONS_ANNOTATION,
];

export const DEFAULT_CPU_UTILIZATION = 80;
const V1 = 'autoscaling/v1';
const V2 = 'autoscaling/v2';

/** Drops undefined fields, so converted objects hold only what was set. */
function compact(object: Json): Json {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

function isCPUUtilization(metric: Json): boolean {
  const resource = metric.resource as Json | undefined;
  return (
    metric.type === 'Resource' &&
    resource?.name === 'cpu' &&
    (resource.target as Json | undefined)?.averageUtilization !== undefined
  );
}

// ---- metrics ------------------------------------------------------------------------------

/**
 * A v2 metric's v1 form: its `target` half as a v1 MetricSpec, or its `current` half as a v1
 * MetricStatus. v1 names the value fields after the half they come from (`targetValue`,
 * `currentAverageUtilization`), the rest alike.
 */
function metricToV1(metric: Json, half: 'target' | 'current'): Json {
  const object = metric.object as Json | undefined;
  const pods = metric.pods as Json | undefined;
  const resource = metric.resource as Json | undefined;
  const container = metric.containerResource as Json | undefined;
  const external = metric.external as Json | undefined;
  const values = (source: Json | undefined) => (source?.[half] as Json | undefined) ?? {};
  const id = (source: Json | undefined) => (source?.metric as Json | undefined) ?? {};
  // A container resource is a resource with its container named.
  const resourceFields = (source: Json) => ({
    name: source.name,
    [`${half}AverageUtilization`]: values(source).averageUtilization,
    [`${half}AverageValue`]: values(source).averageValue,
  });
  return compact({
    type: metric.type,
    object:
      object &&
      compact({
        target: object.describedObject,
        metricName: id(object).name,
        [`${half}Value`]: values(object).value,
        selector: id(object).selector,
        averageValue: values(object).averageValue,
      }),
    pods:
      pods &&
      compact({
        metricName: id(pods).name,
        [`${half}AverageValue`]: values(pods).averageValue,
        selector: id(pods).selector,
      }),
    resource: resource && compact(resourceFields(resource)),
    containerResource: container && compact({ ...resourceFields(container), container: container.container }),
    external:
      external &&
      compact({
        metricName: id(external).name,
        metricSelector: id(external).selector,
        [`${half}Value`]: values(external).value,
        [`${half}AverageValue`]: values(external).averageValue,
      }),
  });
}

function utilizationOrAverage(utilization: unknown, average: unknown): Json {
  return utilization !== undefined
    ? { type: 'Utilization', averageUtilization: utilization }
    : compact({ type: 'AverageValue', averageValue: average });
}

/** How each v1 metric source's values become the v2 half (`target` or `current`), by source. */
type V1Values = Readonly<Record<'object' | 'pods' | 'resource' | 'containerResource' | 'external', (v1: Json) => Json>>;

const resourceTarget = (v1: Json) => utilizationOrAverage(v1.targetAverageUtilization, v1.targetAverageValue);
const resourceCurrent = (v1: Json) =>
  compact({ averageUtilization: v1.currentAverageUtilization, averageValue: v1.currentAverageValue });

const V2_TARGETS: V1Values = {
  object: (v1) =>
    compact({
      type: v1.averageValue === undefined ? 'Value' : 'AverageValue',
      value: v1.targetValue,
      averageValue: v1.averageValue,
    }),
  pods: (v1) => ({ type: 'AverageValue', averageValue: v1.targetAverageValue }),
  resource: resourceTarget,
  containerResource: resourceTarget,
  external: (v1) =>
    v1.targetAverageValue === undefined
      ? compact({ type: 'Value', value: v1.targetValue })
      : { type: 'AverageValue', averageValue: v1.targetAverageValue },
};

const V2_CURRENTS: V1Values = {
  object: (v1) => compact({ value: v1.currentValue, averageValue: v1.averageValue }),
  pods: (v1) => compact({ averageValue: v1.currentAverageValue }),
  resource: resourceCurrent,
  containerResource: resourceCurrent,
  external: (v1) => compact({ value: v1.currentValue, averageValue: v1.currentAverageValue }),
};

/** A v1 MetricSpec (half `target`) or MetricStatus (half `current`) in its v2 form. */
function metricToV2(metric: Json, half: 'target' | 'current'): Json {
  const values = half === 'target' ? V2_TARGETS : V2_CURRENTS;
  const object = metric.object as Json | undefined;
  const pods = metric.pods as Json | undefined;
  const resource = metric.resource as Json | undefined;
  const container = metric.containerResource as Json | undefined;
  const external = metric.external as Json | undefined;
  return compact({
    type: metric.type,
    object:
      object &&
      compact({
        describedObject: object.target,
        metric: compact({ name: object.metricName, selector: object.selector }),
        [half]: values.object(object),
      }),
    pods: pods && {
      metric: compact({ name: pods.metricName, selector: pods.selector }),
      [half]: values.pods(pods),
    },
    resource: resource && { name: resource.name, [half]: values.resource(resource) },
    containerResource: container && {
      name: container.name,
      [half]: values.containerResource(container),
      container: container.container,
    },
    external: external && {
      metric: compact({ name: external.metricName, selector: external.metricSelector }),
      [half]: values.external(external),
    },
  });
}

// ---- behavior, in the Go field names the reference writes ---------------------------------

function rulesToGo(rules: Json | undefined): Json | null {
  if (rules === undefined) return null;
  return {
    StabilizationWindowSeconds: rules.stabilizationWindowSeconds ?? null,
    SelectPolicy: rules.selectPolicy ?? null,
    Policies:
      ((rules.policies as Json[] | undefined) ?? null)?.map((p) => ({
        Type: p.type,
        Value: p.value,
        PeriodSeconds: p.periodSeconds,
      })) ?? null,
    Tolerance: rules.tolerance ?? null,
  };
}

/** Go's decoder matches keys case-insensitively: accept `ScaleUp` and `scaleUp` alike, drop nulls. */
function fromGoNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromGoNames);
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null) continue;
    out[key.charAt(0).toLowerCase() + key.slice(1)] = fromGoNames(item);
  }
  return out;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // The reference ignores annotations it cannot parse.
    return undefined;
  }
}

// ---- whole objects -------------------------------------------------------------------------

function withoutRoundTripAnnotations(metadata: KubeObject['metadata']): KubeObject['metadata'] {
  const copy = structuredClone(metadata);
  if (copy.annotations) {
    for (const key of ROUND_TRIP_ANNOTATIONS) delete copy.annotations[key];
    if (Object.keys(copy.annotations).length === 0) delete copy.annotations;
  }
  return copy;
}

function toV1(hpa: KubeObject): KubeObject {
  const spec = (hpa.spec as Json | undefined) ?? {};
  const status = hpa.status as Json | undefined;
  const metrics = (spec.metrics as Json[] | undefined) ?? [];
  const metadata = withoutRoundTripAnnotations(hpa.metadata);
  const annotations: Record<string, string> = {};
  const otherMetrics = metrics.filter((m) => !isCPUUtilization(m)).map((metric) => metricToV1(metric, 'target'));
  if (otherMetrics.length > 0) annotations[METRIC_SPECS_ANNOTATION] = JSON.stringify(otherMetrics);
  const currentMetrics = (status?.currentMetrics as Json[] | undefined) ?? [];
  if (currentMetrics.length > 0)
    annotations[METRIC_STATUSES_ANNOTATION] = JSON.stringify(
      currentMetrics.map((metric) => metricToV1(metric, 'current')),
    );
  const behavior = spec.behavior as Json | undefined;
  if (behavior)
    annotations[BEHAVIOR_ANNOTATION] = JSON.stringify({
      ScaleUp: rulesToGo(behavior.scaleUp as Json | undefined),
      ScaleDown: rulesToGo(behavior.scaleDown as Json | undefined),
    });
  const conditions = (status?.conditions as Json[] | undefined) ?? [];
  if (conditions.length > 0) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions);
  if (Object.keys(annotations).length > 0) metadata.annotations = { ...metadata.annotations, ...annotations };

  const cpu = metrics.find((m) => m.type === 'Resource' && (m.resource as Json | undefined)?.name === 'cpu');
  const cpuTarget = ((cpu?.resource as Json | undefined)?.target as Json | undefined)?.averageUtilization;
  const cpuStatus = currentMetrics.find(
    (m) => m.type === 'Resource' && (m.resource as Json | undefined)?.name === 'cpu',
  );
  const cpuCurrent = ((cpuStatus?.resource as Json | undefined)?.current as Json | undefined)?.averageUtilization;
  const out: KubeObject = {
    apiVersion: V1,
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: compact({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas,
      targetCPUUtilizationPercentage: cpuTarget,
    }),
  };
  if (status !== undefined) {
    // v1's replica counts have no omitempty: printed as 0 where v2 (currentReplicas) omits them.
    out.status = compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: cpuCurrent,
    });
  }
  return out;
}

function toV2(hpa: KubeObject): KubeObject {
  const spec = (hpa.spec as Json | undefined) ?? {};
  const status = hpa.status as Json | undefined;
  const annotations = hpa.metadata.annotations ?? {};
  const metrics: Json[] = [];
  const otherMetrics = parseJson(annotations[METRIC_SPECS_ANNOTATION]);
  if (Array.isArray(otherMetrics))
    metrics.push(...(otherMetrics as Json[]).map((metric) => metricToV2(metric, 'target')));
  if (spec.targetCPUUtilizationPercentage !== undefined) {
    metrics.push({
      type: 'Resource',
      resource: {
        name: 'cpu',
        target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage },
      },
    });
  }
  if (metrics.length === 0) {
    metrics.push({
      type: 'Resource',
      resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } },
    });
  }
  const behavior = fromGoNames(parseJson(annotations[BEHAVIOR_ANNOTATION])) as Json | undefined;
  const out: KubeObject = {
    apiVersion: V2,
    kind: 'HorizontalPodAutoscaler',
    metadata: withoutRoundTripAnnotations(hpa.metadata),
    spec: compact({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas,
      metrics,
      behavior: behavior !== undefined && Object.keys(behavior).length > 0 ? behavior : undefined,
    }),
  };
  if (status !== undefined) {
    const currentMetricsAnnotation = parseJson(annotations[METRIC_STATUSES_ANNOTATION]);
    let currentMetrics: Json[] | undefined;
    if (Array.isArray(currentMetricsAnnotation))
      currentMetrics = (currentMetricsAnnotation as Json[]).map((metric) => metricToV2(metric, 'current'));
    else if (status.currentCPUUtilizationPercentage !== undefined) {
      currentMetrics = [
        {
          type: 'Resource',
          resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } },
        },
      ];
    }
    const conditions = parseJson(annotations[CONDITIONS_ANNOTATION]);
    out.status = compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas,
      desiredReplicas: status.desiredReplicas,
      currentMetrics,
      conditions: Array.isArray(conditions) ? conditions : undefined,
    });
  }
  return out;
}

/** Converts a HorizontalPodAutoscaler of either version to `to`; the object's apiVersion says where it starts. */
export function convertHorizontalPodAutoscaler(object: KubeObject, to: GroupVersion): KubeObject {
  const target = groupVersionString(to);
  const source = object.apiVersion ?? V2;
  if (source === target) return object;
  if (source === V2 && target === V1) return toV1(object);
  if (source === V1 && target === V2) return toV2(object);
  throw new Error(`cannot convert HorizontalPodAutoscaler from ${source} to ${target}`);
}
