/** autoscaling HorizontalPodAutoscalers: stored as v2, served as v2 (preferred) and v1. */
import type { KubeObject } from '../../../api/objects';
import {
  validateHorizontalPodAutoscaler,
  validateHorizontalPodAutoscalerStatusUpdate,
  validateHorizontalPodAutoscalerUpdate,
} from '../../validation/autoscaling';
import { convertHorizontalPodAutoscaler, DEFAULT_CPU_UTILIZATION } from '../conversion/hpa';
import { child, fill, type Json } from '../defaults/fill';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { dropDisabledFieldsOf, isSet, objectAt, type GatedFields } from './gated-fields';
import { hpaPrinter } from '../../table/printers';

function defaultScalingRules(
  rules: Json,
  policies: Json[],
  selectPolicy: string,
  stabilizationWindowSeconds?: number,
): void {
  if (stabilizationWindowSeconds !== undefined) fill(rules, 'stabilizationWindowSeconds', stabilizationWindowSeconds);
  fill(rules, 'selectPolicy', selectPolicy);
  fill(rules, 'policies', policies);
}

/** autoscaling/v2 SetDefaults_HorizontalPodAutoscaler: minReplicas 1, a CPU 80% target, behavior rules when behavior is set. */
export function defaultHorizontalPodAutoscaler(hpa: KubeObject): void {
  const spec = child(hpa as Json, 'spec');
  fill(spec, 'minReplicas', 1);
  const metrics = spec.metrics as Json[] | undefined;
  if (!metrics || metrics.length === 0) {
    spec.metrics = [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } },
      },
    ];
  }
  const behavior = spec.behavior as Json | undefined;
  if (behavior) {
    defaultScalingRules(
      child(behavior, 'scaleUp'),
      [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
      'Max',
      0,
    );
    defaultScalingRules(child(behavior, 'scaleDown'), [{ type: 'Percent', value: 100, periodSeconds: 15 }], 'Max');
  }
}

function scalingRules(hpa: KubeObject): Json[] {
  return ['scaleUp', 'scaleDown'].flatMap((direction): Json[] => {
    const rules = objectAt(hpa, `spec.behavior.${direction}`);
    return rules === undefined ? [] : [rules];
  });
}

/** Each direction's `tolerance`, kept on update while either of the stored autoscaler's has one. */
const CONFIGURABLE_TOLERANCE: GatedFields = {
  gates: ['HPAConfigurableTolerance'],
  inUse: (hpa) => scalingRules(hpa).some((rules) => isSet(rules.tolerance)),
  drop: (hpa) => {
    for (const rules of scalingRules(hpa)) delete rules.tolerance;
  },
};

export const autoscalingKinds: readonly ResourceType[] = [
  defineKind({
    group: 'autoscaling',
    resource: 'horizontalpodautoscalers',
    printer: hpaPrinter,
    kind: 'HorizontalPodAutoscaler',
    namespaced: true,
    versions: ['v2', 'v1'],
    storageVersion: 'v2',
    shortNames: ['hpa'],
    categories: ['all'],
    subresources: { status: true },
    behaviour: {
      defaults: defaultHorizontalPodAutoscaler,
      initialStatus: () => ({ desiredReplicas: 0 }),
      dropDisabledFields: dropDisabledFieldsOf([CONFIGURABLE_TOLERANCE]),
      validate: validateHorizontalPodAutoscaler,
      validateUpdate: validateHorizontalPodAutoscalerUpdate,
      validateStatusUpdate: validateHorizontalPodAutoscalerStatusUpdate,
    },
    convert: convertHorizontalPodAutoscaler,
  }),
];
