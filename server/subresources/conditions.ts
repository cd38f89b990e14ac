/** Status conditions as the reference's controllers and subresources set them. */
import { metaTime, type KubeObject } from '../../api/objects';

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly [field: string]: unknown;
}

/**
 * Sets the condition of `condition.type` in `object.status.conditions`: lastTransitionTime
 * moves only when the status changes, as the reference's condition helpers do.
 */
export function upsertCondition(object: KubeObject, condition: Condition, now: Date): void {
  const status = (object.status ??= {}) as { conditions?: Condition[] };
  const conditions = status.conditions ?? [];
  const index = conditions.findIndex((existing) => existing.type === condition.type);
  const previous = index >= 0 ? conditions[index] : undefined;
  const lastTransitionTime =
    previous !== undefined && previous.status === condition.status && previous.lastTransitionTime
      ? previous.lastTransitionTime
      : metaTime(now);
  const next = { ...condition, lastTransitionTime };
  status.conditions =
    index >= 0 ? conditions.map((existing, i) => (i === index ? next : existing)) : [...conditions, next];
}
