/** autoscaling/v2 HorizontalPodAutoscaler rules (run on the stored v2 form). */
import type { KubeObject } from '../../storage/objects/types';
import type { FieldError } from '../status/field-error';
import { FieldPath, invalid, required } from './field-errors';

interface HPASpec {
  scaleTargetRef?: { kind?: string; name?: string };
  minReplicas?: number;
  maxReplicas?: number;
}

export function validateHorizontalPodAutoscaler(hpa: KubeObject): FieldError[] {
  const spec = (hpa.spec as HPASpec | undefined) ?? {};
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  if (!spec.scaleTargetRef?.kind) errors.push(required(path.child('scaleTargetRef', 'kind')));
  if (!spec.scaleTargetRef?.name) errors.push(required(path.child('scaleTargetRef', 'name')));
  const minReplicas = spec.minReplicas ?? 1;
  if (minReplicas < 1) errors.push(invalid(path.child('minReplicas'), minReplicas, 'must be greater than or equal to 1'));
  if (spec.maxReplicas === undefined || spec.maxReplicas < 1) errors.push(invalid(path.child('maxReplicas'), spec.maxReplicas ?? 0, 'must be greater than 0'));
  else if (spec.maxReplicas < minReplicas) errors.push(invalid(path.child('maxReplicas'), spec.maxReplicas, 'must be greater than or equal to `minReplicas`'));
  return errors;
}
