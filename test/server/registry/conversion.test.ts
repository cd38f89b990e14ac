import type { KubeObject } from '../../../api/objects';
import { convertEvent } from '../../../server/registry/conversion/events';
import {
  BEHAVIOR_ANNOTATION,
  CONDITIONS_ANNOTATION,
  convertHorizontalPodAutoscaler,
  METRIC_SPECS_ANNOTATION,
  METRIC_STATUSES_ANNOTATION,
} from '../../../server/registry/conversion/hpa';

const V1 = { group: 'autoscaling', version: 'v1' };
const V2 = { group: 'autoscaling', version: 'v2' };

const fullV2: KubeObject = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', annotations: { owner: 'team-a' } },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1k' } } },
      {
        type: 'External',
        external: {
          metric: { name: 'queue', selector: { matchLabels: { q: 'jobs' } } },
          target: { type: 'Value', value: '30' },
        },
      },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
    ],
    behavior: {
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }],
      },
      scaleDown: {
        stabilizationWindowSeconds: 300,
        selectPolicy: 'Min',
        policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }],
      },
    },
  },
  status: {
    observedGeneration: 3,
    currentReplicas: 2,
    desiredReplicas: 3,
    currentMetrics: [
      { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 75, averageValue: '150m' } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '900' } } },
    ],
    conditions: [
      {
        type: 'AbleToScale',
        status: 'True',
        lastTransitionTime: '2025-01-01T00:00:00Z',
        reason: 'ReadyForNewScale',
        message: 'ok',
      },
    ],
  },
};

describe('HorizontalPodAutoscaler v1 <-> v2', () => {
  test('v2 → v1 keeps the CPU target in v1 fields and the rest in annotations', () => {
    const v1 = convertHorizontalPodAutoscaler(fullV2, V1);
    expect(v1.apiVersion).toBe('autoscaling/v1');
    expect(v1.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 10,
      targetCPUUtilizationPercentage: 60,
    });
    expect(v1.status).toEqual({
      observedGeneration: 3,
      currentReplicas: 2,
      desiredReplicas: 3,
      currentCPUUtilizationPercentage: 75,
    });
    const annotations = v1.metadata.annotations ?? {};
    expect(annotations.owner).toBe('team-a');
    expect(JSON.parse(annotations[METRIC_SPECS_ANNOTATION])).toEqual([
      { type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } },
      { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '1k' } },
      {
        type: 'External',
        external: { metricName: 'queue', metricSelector: { matchLabels: { q: 'jobs' } }, targetValue: '30' },
      },
    ]);
    expect(JSON.parse(annotations[METRIC_STATUSES_ANNOTATION])).toEqual([
      { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 75, currentAverageValue: '150m' } },
      { type: 'Pods', pods: { metricName: 'qps', currentAverageValue: '900' } },
    ]);
    // The reference marshals its internal type here: Go field names, nulls for unset pointers.
    expect(JSON.parse(annotations[BEHAVIOR_ANNOTATION])).toEqual({
      ScaleUp: {
        StabilizationWindowSeconds: 0,
        SelectPolicy: 'Max',
        Policies: [{ Type: 'Pods', Value: 4, PeriodSeconds: 15 }],
        Tolerance: null,
      },
      ScaleDown: {
        StabilizationWindowSeconds: 300,
        SelectPolicy: 'Min',
        Policies: [{ Type: 'Percent', Value: 10, PeriodSeconds: 60 }],
        Tolerance: null,
      },
    });
    expect(JSON.parse(annotations[CONDITIONS_ANNOTATION])).toEqual(
      (fullV2.status as { conditions: unknown }).conditions,
    );
  });

  test('v2 → v1 → v2 round-trips, with the CPU metric moved last', () => {
    const back = convertHorizontalPodAutoscaler(convertHorizontalPodAutoscaler(fullV2, V1), V2);
    expect(back).toEqual(fullV2);
  });

  test('v1 → v2 → v1 round-trips', () => {
    const v1: KubeObject = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 1,
        maxReplicas: 4,
        targetCPUUtilizationPercentage: 50,
      },
      status: { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 20 },
    };
    const v2 = convertHorizontalPodAutoscaler(v1, V2);
    expect(v2.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 4,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      ],
    });
    // As in the reference, the CPU status is also kept raw in the current-metrics annotation.
    expect(convertHorizontalPodAutoscaler(v2, V1)).toEqual({
      ...v1,
      metadata: {
        ...v1.metadata,
        annotations: {
          [METRIC_STATUSES_ANNOTATION]:
            '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":20}}]',
        },
      },
    });
  });

  test('a v1 object without a CPU target gets the implicit 80% in v2', () => {
    const v2 = convertHorizontalPodAutoscaler(
      {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'h' },
        spec: { maxReplicas: 3 },
      },
      V2,
    );
    expect((v2.spec as { metrics: unknown }).metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);
  });

  test('round-trip annotations written by clients on v1 are read, then dropped from v2', () => {
    const v2 = convertHorizontalPodAutoscaler(
      {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        metadata: {
          name: 'h',
          annotations: {
            [BEHAVIOR_ANNOTATION]:
              '{"ScaleDown":{"StabilizationWindowSeconds":120,"SelectPolicy":null,"Policies":null}}',
          },
        },
        spec: { maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
      },
      V2,
    );
    expect(v2.metadata.annotations).toBeUndefined();
    expect((v2.spec as { behavior: unknown }).behavior).toEqual({ scaleDown: { stabilizationWindowSeconds: 120 } });
  });
});

describe('core v1 Event <-> events.k8s.io/v1 Event', () => {
  const core: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'web.17a', namespace: 'default' },
    involvedObject: {
      kind: 'Pod',
      namespace: 'default',
      name: 'web',
      uid: 'u1',
      apiVersion: 'v1',
      fieldPath: 'spec.containers{web}',
    },
    reason: 'Pulled',
    message: 'Successfully pulled image',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2025-01-01T00:00:00Z',
    lastTimestamp: '2025-01-01T00:01:00Z',
    count: 2,
    type: 'Normal',
    eventTime: null,
    reportingComponent: 'kubelet',
    reportingInstance: 'node-1',
    action: 'Pull',
    series: { count: 2, lastObservedTime: '2025-01-01T00:01:00.000000Z' },
  };
  const events: KubeObject = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'web.17a', namespace: 'default' },
    regarding: {
      kind: 'Pod',
      namespace: 'default',
      name: 'web',
      uid: 'u1',
      apiVersion: 'v1',
      fieldPath: 'spec.containers{web}',
    },
    reason: 'Pulled',
    note: 'Successfully pulled image',
    deprecatedSource: { component: 'kubelet', host: 'node-1' },
    deprecatedFirstTimestamp: '2025-01-01T00:00:00Z',
    deprecatedLastTimestamp: '2025-01-01T00:01:00Z',
    deprecatedCount: 2,
    type: 'Normal',
    eventTime: null,
    reportingController: 'kubelet',
    reportingInstance: 'node-1',
    action: 'Pull',
    series: { count: 2, lastObservedTime: '2025-01-01T00:01:00.000000Z' },
  };

  test.each([
    ['core → events.k8s.io', core, { group: 'events.k8s.io', version: 'v1' }, events],
    ['events.k8s.io → core', events, { group: '', version: 'v1' }, core],
    ['same version copies', core, { group: '', version: 'v1' }, core],
  ])('%s', (_name, input, to, expected) => {
    expect(convertEvent(input, to)).toEqual(expected);
  });

  test('round trip both ways', () => {
    expect(
      convertEvent(convertEvent(core, { group: 'events.k8s.io', version: 'v1' }), { group: '', version: 'v1' }),
    ).toEqual(core);
    expect(
      convertEvent(convertEvent(events, { group: '', version: 'v1' }), { group: 'events.k8s.io', version: 'v1' }),
    ).toEqual(events);
  });

  test('empty core reporting fields (as a protobuf value decodes) are left out of events.k8s.io/v1', () => {
    const decoded = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e' },
      reason: 'R',
      reportingComponent: '',
      reportingInstance: '',
    };
    expect(convertEvent(decoded, { group: 'events.k8s.io', version: 'v1' })).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e' },
      reason: 'R',
    });
    const reported = { ...decoded, reportingComponent: 'c', reportingInstance: '' };
    expect(convertEvent(reported, { group: 'events.k8s.io', version: 'v1' })).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e' },
      reason: 'R',
      reportingController: 'c',
    });
  });

  test('unknown versions are refused', () => {
    expect(() => convertEvent(core, { group: 'events.k8s.io', version: 'v1beta1' })).toThrow(
      'cannot convert Event from v1 to events.k8s.io/v1beta1',
    );
  });
});
