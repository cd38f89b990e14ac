/**
 * The three guards of CertificateSigningRequests, each a plugin of its own name as in the
 * reference: CertificateApproval (approving or denying through `/approval` needs the `approve`
 * verb on the request's signer), CertificateSigning (writing a certificate or a condition
 * through `/status` needs `sign` on it), and CertificateSubjectRestriction (no one may ask the
 * kube-apiserver-client signer for a certificate in `system:masters`, which nothing could
 * revoke). A signer is the resource `signers` of certificates.k8s.io, named by the signer name
 * or by its domain's wildcard `<domain>/*`.
 */
import { refusedName } from '../refused-name';
import type { UserInfo } from '../../../api/user-info';
import type { Authorizer } from '../../authz/types';
import { csrSubject } from '../../pki/csr-subject';
import { forbidden } from '../../status/catalogue';
import { deepEqual } from '../../status/field-errors';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

const GROUP = 'certificates.k8s.io';
const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

type Fields = Record<string, unknown>;
const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};

/** Whether `user` may `verb` the signer by its name, or else by its domain's wildcard. */
export async function mayUseSigner(
  authorizer: Authorizer,
  user: UserInfo,
  verb: 'approve' | 'sign' | 'attest',
  signerName: string,
): Promise<boolean> {
  for (const name of [signerName, `${signerName.split('/')[0]}/*`]) {
    const { decision } = await authorizer.authorize({
      user,
      verb,
      isResourceRequest: true,
      path: '',
      namespace: '',
      apiGroup: GROUP,
      apiVersion: '*',
      resource: 'signers',
      subresource: '',
      name,
    });
    if (decision === 'allow') return true;
  }
  return false;
}

const requestsOf = (attributes: AdmissionAttributes, subResource: string): boolean =>
  attributes.resource.group === GROUP &&
  attributes.resource.resource === 'certificatesigningrequests' &&
  attributes.subResource === subResource;

const signerOf = (attributes: AdmissionAttributes): string =>
  String(record(attributes.oldObject?.spec).signerName ?? '');

/** Refuses the write unless its user may `verb` (approve, sign) requests of the request's signer. */
async function requireSigner(
  authorizer: Authorizer,
  attributes: AdmissionAttributes,
  verb: 'approve' | 'sign',
): Promise<void> {
  const signer = signerOf(attributes);
  if (!(await mayUseSigner(authorizer, attributes.userInfo, verb, signer))) {
    throw forbidden(
      attributes.resource,
      refusedName(attributes),
      `user not permitted to ${verb} requests with signerName ${JSON.stringify(signer)}`,
    );
  }
}

export function certificateApprovalPlugin(authorizer: Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    async validate(attributes) {
      if (attributes.operation !== 'UPDATE' || !requestsOf(attributes, 'approval')) return;
      await requireSigner(authorizer, attributes, 'approve');
    },
  };
}

export function certificateSigningPlugin(authorizer: Authorizer): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    async validate(attributes) {
      if (attributes.operation !== 'UPDATE' || !requestsOf(attributes, 'status')) return;
      const [status, oldStatus] = [record(attributes.object?.status), record(attributes.oldObject?.status)];
      if (
        status.certificate === oldStatus.certificate &&
        deepEqual(status.conditions ?? [], oldStatus.conditions ?? [])
      )
        return;
      await requireSigner(authorizer, attributes, 'sign');
    },
  };
}

export function certificateSubjectRestrictionPlugin(): AdmissionPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    async validate(attributes) {
      if (attributes.operation !== 'CREATE' || !requestsOf(attributes, '')) return;
      const spec = record(attributes.object?.spec);
      if (spec.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return;
      const refuse = (reason: string) => forbidden(attributes.resource, refusedName(attributes), reason);
      let organizations: readonly string[];
      try {
        ({ organizations } = csrSubject(spec.request));
      } catch (error) {
        throw refuse(`failed to parse CSR: ${(error as Error).message}`);
      }
      if (organizations.includes('system:masters'))
        throw refuse(`use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
    },
  };
}
