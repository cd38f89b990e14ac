/**
 * `certificatesigningrequests/approval`: how a CSR is approved or denied (`kubectl certificate
 * approve|deny`). A write through it changes status.conditions and nothing else of spec or
 * status, fills the conditions' missing timestamps, and is validated as the reference's
 * approval update (server/validation/certificate-conditions.ts): the one write that may add
 * an Approved or Denied condition.
 */
import type { KubeObject } from '../../api/objects';
import { copyJson } from '../json/value';
import { rfc3339Seconds } from '../fieldmanager/managed-fields';
import { partialWriteHandlers } from './partial-write';
import { validateCertificateSigningRequestApproval } from '../validation/certificates';

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

export const approvalHandlers = partialWriteHandlers((_base, scope) => ({
  prepareForStatusUpdate: prepareApproval(scope.context.now),
  validateUpdate: validateCertificateSigningRequestApproval,
}));
