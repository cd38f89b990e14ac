/**
 * `certificatesigningrequests/approval`: how a CSR is approved or denied (`kubectl certificate
 * approve|deny`). A write through it changes status.conditions and nothing else of spec or
 * status, fills the conditions' missing timestamps, and is validated as the reference's
 * approval update: no type twice, not Approved and Denied together, and no Approved, Denied
 * or Failed condition taken away once set.
 */
import type { KubeObject } from '../../api/objects';
import { copyJson } from '../json/value';
import { rfc3339Seconds } from '../fieldmanager/managed-fields';
import type { FieldError } from '../registry/types';
import { partialWriteHandlers } from './partial-write';
import { duplicate, FieldPath, forbidden, invalid } from '../status/field-errors';

interface CSRCondition {
  type?: string;
  status?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  [field: string]: unknown;
}

function conditionsOf(csr: KubeObject): CSRCondition[] {
  return (csr.status as { conditions?: CSRCondition[] } | undefined)?.conditions ?? [];
}

/** Conditions that record a decision, which an approval update may not remove. */
const DECISIONS = ['Approved', 'Denied', 'Failed'];

/** Spec and status stay as stored but for the conditions the write sends, with their times filled. */
function prepareApproval(now: () => Date): (object: KubeObject, old: KubeObject) => void {
  return (object, old) => {
    const conditions = conditionsOf(object).map((condition) => ({ ...condition }));
    const stamp = rfc3339Seconds(now());
    for (const condition of conditions) {
      condition.lastUpdateTime ||= stamp;
      if (!condition.lastTransitionTime) {
        const same = conditionsOf(old).find(
          (previous) =>
            previous.type === condition.type && previous.status === condition.status && previous.lastTransitionTime,
        );
        condition.lastTransitionTime = same?.lastTransitionTime ?? stamp;
      }
    }
    if (old.spec === undefined) delete object.spec;
    else object.spec = copyJson(old.spec);
    const status = copyJson((old.status as Record<string, unknown> | undefined) ?? {});
    if (conditions.length > 0) status.conditions = conditions;
    else delete status.conditions;
    object.status = status;
  };
}

export function validateApprovalUpdate(object: KubeObject, old: KubeObject): FieldError[] {
  const path = FieldPath.root('status', 'conditions');
  const conditions = conditionsOf(object);
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  conditions.forEach((condition, index) => {
    const type = condition.type ?? '';
    if (seen.has(type)) errors.push(duplicate(path.index(index).child('type'), type));
    seen.add(type);
  });
  if (seen.has('Approved') && seen.has('Denied'))
    errors.push(invalid(path, 'Denied', 'Approved and Denied conditions are mutually exclusive'));
  for (const type of DECISIONS) {
    const count = (list: CSRCondition[]) => list.filter((condition) => condition.type === type).length;
    if (count(conditions) < count(conditionsOf(old)))
      errors.push(forbidden(path, `updates may not remove a condition of type ${JSON.stringify(type)}`));
  }
  return errors;
}

export const approvalHandlers = partialWriteHandlers((base, scope) => ({
  prepareForStatusUpdate: prepareApproval(scope.context.now),
  validateUpdate: (object, old, context) => [
    ...(base.validateUpdate?.(object, old, context) ?? []),
    ...validateApprovalUpdate(object, old),
  ],
}));
