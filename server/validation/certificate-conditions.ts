/**
 * A CertificateSigningRequest's status.conditions on update, after the reference's
 * validateConditions and validateCertificateSigningRequestUpdate. Condition by condition: a
 * type, a status among those its type allows, not Approved and Denied together (the second of a
 * pair named, once per pair; an error a declarative rule covers), no type twice. Then no
 * Approved, Denied or Failed condition taken away, and, outside the approval subresource, no
 * Approved or Denied condition added. Each per-condition rule spares a stored request that
 * already breaks it, as the reference keeps its existing data writable.
 */
import type { KubeObject } from '../../api/objects';
import { duplicate, FieldPath, forbidden, invalid, notSupported, required } from '../status/field-errors';
import type { FieldError } from '../status/field-error';
import { coveredByDeclarative, type DeclarativeFieldError } from './declarative-validation';

interface CSRCondition {
  type?: string;
  status?: string;
}

const conditionsOf = (csr: KubeObject): CSRCondition[] =>
  (csr.status as { conditions?: CSRCondition[] } | undefined)?.conditions ?? [];

/** The decisions that exclude each other, each with the other. */
const EXCLUSIVE_DECISIONS = new Map([
  ['Approved', 'Denied'],
  ['Denied', 'Approved'],
]);
/** Conditions that record a decision: never removed, and only ever True. */
const DECISIONS = ['Approved', 'Denied', 'Failed'];
const STATUS_VALUES = ['False', 'True', 'Unknown'];

/** Which per-condition rules the stored request already breaks, and so are not asked. */
function toleratedOf(old: KubeObject) {
  const types = conditionsOf(old).map((condition) => condition.type ?? '');
  return {
    emptyType: types.includes(''),
    duplicateTypes: new Set(types).size < types.length,
    approvedAndDenied: types.includes('Approved') && types.includes('Denied'),
  };
}

/** Condition by condition, sparing what the stored request already breaks. */
export function conditionErrors(csr: KubeObject, old: KubeObject): DeclarativeFieldError[] {
  const path = FieldPath.root('status', 'conditions');
  const tolerated = toleratedOf(old);
  const errors: DeclarativeFieldError[] = [];
  const seen = new Set<string>();
  conditionsOf(csr).forEach((condition, index) => {
    const type = condition.type ?? '';
    const at = path.index(index);
    if (type === '' && !tolerated.emptyType) errors.push(required(at.child('type')));
    const allowed = DECISIONS.includes(type) ? ['True'] : STATUS_VALUES;
    if (!condition.status) errors.push(required(at.child('status')));
    else if (!allowed.includes(condition.status))
      errors.push(notSupported(at.child('status'), condition.status, allowed));
    const other = EXCLUSIVE_DECISIONS.get(type);
    if (other !== undefined && seen.has(other) && !tolerated.approvedAndDenied)
      errors.push(
        ...coveredByDeclarative(
          [invalid(path, type, 'Approved and Denied conditions are mutually exclusive')],
          'zeroOrOneOf',
        ),
      );
    if (seen.has(type) && !tolerated.duplicateTypes) errors.push(duplicate(at.child('type'), type));
    seen.add(type);
  });
  return errors;
}

/**
 * What a write may do to the decisions: never remove one; `settingDecisions`, a write through
 * `approval`, may add Approved and Denied conditions.
 */
export function decisionChangeErrors(
  csr: KubeObject,
  old: KubeObject,
  options: { readonly settingDecisions: boolean },
): FieldError[] {
  const path = FieldPath.root('status', 'conditions');
  const errors: FieldError[] = [];
  const count = (from: KubeObject, type: string) => conditionsOf(from).filter((c) => c.type === type).length;
  for (const type of DECISIONS) {
    if (count(csr, type) < count(old, type))
      errors.push(forbidden(path, `updates may not remove a condition of type ${JSON.stringify(type)}`));
  }
  if (!options.settingDecisions) {
    for (const type of ['Approved', 'Denied']) {
      if (count(csr, type) > count(old, type))
        errors.push(forbidden(path, `updates may not add a condition of type ${JSON.stringify(type)}`));
    }
  }
  return errors;
}
