/**
 * Who may write a PodCertificateRequest's status: its status is the signer's answer (the
 * certificate chain, or a denial or failure), so a write that changes it needs the `sign` verb
 * on the request's signer, as a CertificateSigningRequest's needs (CertificateSigning admission).
 * The reference checks it in the status strategy's update validation, after the status's own
 * rules, and answers 422 with a Forbidden cause at `spec.signerName`; here it is a store hook of
 * the status subresource, which runs at the same point (registry/store/update.ts, step 5b).
 */
import type { KubeObject } from '../../../api/objects';
import { mayUseSigner } from '../../admission/plugins/certificates';
import type { Authorizer } from '../../authz/types';
import { invalid } from '../../status/catalogue';
import { deepEqual, FieldPath, forbidden } from '../../status/field-errors';
import { goQuote } from '../../../api/go-quote';
import { FINISH_NOTHING, type FinishWrite, type StoreHooks } from '../store/hooks';

export function podCertificateSigningHooks(authorizer: Authorizer): StoreHooks {
  return {
    async beginStatusUpdate(object, old, { user }): Promise<FinishWrite> {
      if (deepEqual(object.status ?? null, old.status ?? null)) return FINISH_NOTHING;
      const signerName = String((old.spec as { signerName?: unknown } | undefined)?.signerName ?? '');
      if (await mayUseSigner(authorizer, user, 'sign', signerName)) return FINISH_NOTHING;
      throw invalid({ group: 'certificates.k8s.io', kind: 'PodCertificateRequest' }, nameOf(object), [
        forbidden(
          FieldPath.root('spec', 'signerName'),
          `User ${goQuote(user.name)} is not permitted to "sign" for signer ${goQuote(signerName)}`,
        ),
      ]);
    },
  };
}

function nameOf(object: KubeObject): string {
  return object.metadata.name ?? '';
}
