/**
 * `certificatesigningrequests/approval`: how a CSR is approved or denied (`kubectl certificate
 * approve|deny`). A write through it changes status.conditions and nothing else of spec or
 * status, fills the conditions' missing timestamps, and is validated as the reference's
 * approval update (server/validation/certificate-conditions.ts): the one write that may add
 * an Approved or Denied condition.
 */
import { metaTime, type KubeObject } from '../../api/objects';
import { copyJson } from '../json/value';
import { fillConditionTimes, requestConditions } from '../registry/kinds/certificate-decisions';
import { partialWriteHandlers } from './partial-write';
import { validateCertificateSigningRequestApproval } from '../validation/certificates';

/** Spec and status stay as stored but for the conditions the write sends, with their times filled. */
function prepareApproval(now: () => Date): (object: KubeObject, old: KubeObject) => void {
  return (object, old) => {
    const conditions = requestConditions(object).map((condition) => ({ ...condition }));
    fillConditionTimes(conditions, requestConditions(old), metaTime(now()));
    if (old.spec === undefined) delete object.spec;
    else object.spec = copyJson(old.spec);
    const status = copyJson((old.status as Record<string, unknown> | undefined) ?? {});
    if (conditions.length > 0) status.conditions = conditions;
    else delete status.conditions;
    object.status = status;
  };
}

// The approval's store resets only spec and status.certificate: an apply through it may own the
// rest, labels included, though the write keeps status but its conditions as stored.
export const approvalHandlers = partialWriteHandlers(
  (_base, scope) => ({
    prepareForStatusUpdate: prepareApproval(scope.context.now),
    validateStatusUpdate: validateCertificateSigningRequestApproval,
  }),
  { allBut: [['spec'], ['status', 'certificate']] },
);
