/**
 * What a CertificateSigningRequest's status writes do to its conditions before validation, as
 * the reference's CSR strategies do: a status write keeps each stored Approved and Denied
 * condition as stored when it sends as many of that type (so it cannot reword a decision; one
 * added or removed is left for validation to refuse), and every write that sets conditions
 * fills in their missing times.
 */
import type { KubeObject } from '../../../api/objects';

export interface RequestCondition {
  type?: string;
  status?: string;
  lastUpdateTime?: string | null;
  lastTransitionTime?: string | null;
  [field: string]: unknown;
}

export function requestConditions(csr: KubeObject): RequestCondition[] {
  return (csr.status as { conditions?: RequestCondition[] } | undefined)?.conditions ?? [];
}

const DECISIONS = ['Approved', 'Denied'];

/** The stored decisions in place of those sent, type by type, where their counts agree (may mutate `csr`). */
export function keepStoredDecisions(csr: KubeObject, old: KubeObject): void {
  const conditions = requestConditions(csr);
  const stored = requestConditions(old);
  for (const type of DECISIONS) {
    const sentAt = conditions.flatMap((condition, i) => (condition.type === type ? [i] : []));
    const storedOfType = stored.filter((condition) => condition.type === type);
    if (sentAt.length !== storedOfType.length) continue;
    sentAt.forEach((index, n) => (conditions[index] = structuredClone(storedOfType[n])));
  }
}

/**
 * Times a condition lacks: `stamp` for its update, and for its transition the stored one of a
 * condition of the same type and status, else `stamp` (may mutate `conditions`).
 */
export function fillConditionTimes(
  conditions: RequestCondition[],
  stored: readonly RequestCondition[],
  stamp: string,
): void {
  for (const condition of conditions) {
    condition.lastUpdateTime ||= stamp;
    if (!condition.lastTransitionTime) {
      const same = stored.find(
        (previous) =>
          previous.type === condition.type && previous.status === condition.status && previous.lastTransitionTime,
      );
      condition.lastTransitionTime = same?.lastTransitionTime ?? stamp;
    }
  }
}
