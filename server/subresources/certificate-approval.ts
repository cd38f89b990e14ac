/**
 * `certificatesigningrequests/approval`: how a CSR is approved or denied (`kubectl certificate
 * approve|deny`). A write through it changes status.conditions and nothing else of spec or
 * status, fills the conditions' missing timestamps, and is validated as the reference's
 * approval update: no type twice, not Approved and Denied together, and no Approved, Denied
 * or Failed condition taken away once set. The Approved and Denied rule is also declared, so
 * the declarative validation gates decide which of its two texts a client reads
 * (server/validation/declarative-validation.ts).
 */
import type { KubeObject } from '../../api/objects';
import { copyJson } from '../json/value';
import { rfc3339Seconds } from '../fieldmanager/managed-fields';
import { partialWriteHandlers } from './partial-write';
import { duplicate, FieldPath, forbidden, invalid } from '../status/field-errors';
import { certificateSigningRequestDeclarativeErrors } from '../validation/declarative-rules';
import {
  coveredByDeclarative,
  withDeclarativeValidation,
  type DeclarativeFieldError,
} from '../validation/declarative-validation';

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

/** The decisions that exclude each other, each with the other. */
const EXCLUSIVE_DECISIONS = new Map([
  ['Approved', 'Denied'],
  ['Denied', 'Approved'],
]);

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

export function validateApprovalUpdate(object: KubeObject, old: KubeObject): DeclarativeFieldError[] {
  const path = FieldPath.root('status', 'conditions');
  const errors: DeclarativeFieldError[] = [];
  const seen = new Set<string>();
  // Condition by condition, as the reference: the second of an Approved and Denied pair names
  // itself, once per pair it closes.
  conditionsOf(object).forEach((condition, index) => {
    const type = condition.type ?? '';
    const other = EXCLUSIVE_DECISIONS.get(type);
    if (other !== undefined && seen.has(other))
      errors.push(
        ...coveredByDeclarative(
          [invalid(path, type, 'Approved and Denied conditions are mutually exclusive')],
          'zeroOrOneOf',
        ),
      );
    if (seen.has(type)) errors.push(duplicate(path.index(index).child('type'), type));
    seen.add(type);
  });
  for (const type of DECISIONS) {
    const count = (list: CSRCondition[]) => list.filter((condition) => condition.type === type).length;
    if (count(conditionsOf(object)) < count(conditionsOf(old)))
      errors.push(forbidden(path, `updates may not remove a condition of type ${JSON.stringify(type)}`));
  }
  return errors;
}

export const approvalHandlers = partialWriteHandlers((base, scope) => ({
  prepareForStatusUpdate: prepareApproval(scope.context.now),
  validateUpdate: (object, old, context) =>
    withDeclarativeValidation(
      context,
      [...(base.validateUpdate?.(object, old, context) ?? []), ...validateApprovalUpdate(object, old)],
      () => certificateSigningRequestDeclarativeErrors(object, old),
    ),
}));
