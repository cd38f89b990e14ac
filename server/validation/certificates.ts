/**
 * certificates.k8s.io/v1 CertificateSigningRequest rules, after the reference's: the request
 * is a PEM-encoded PKCS#10 request (checked as written; its signature is the signer's to
 * check), the usages are known ones, each once. The parser loads on the first request checked.
 */
import type { KubeObject } from '../../api/objects';
import { loadX509 } from '../x509-library';
import type { FieldError } from '../status/field-error';
import { duplicate, FieldPath, invalid, notSupported, required } from '../status/field-errors';
import type { WriteContext } from '../registry/types';
import { conditionErrors, decisionChangeErrors } from './certificate-conditions';
import { certificateChangeErrors, issuedCertificateErrors } from './issued-certificate';
import { certificateSigningRequestDeclarativeErrors } from './declarative-rules';
import { withDeclarativeValidation } from './declarative-validation';

const KNOWN_USAGES = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];

/** The first PEM block of the text, as Go's pem.Decode finds it. */
const PEM_BLOCK = /-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/;

/** Why the base64 request is no PKCS#10 request, or undefined. */
function requestProblem(request: string): string | undefined {
  const block = PEM_BLOCK.exec(Buffer.from(request, 'base64').toString('latin1'));
  if (block === null || block[1] !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  try {
    new (loadX509().Pkcs10CertificateRequest)(Buffer.from(block[2].replace(/\s+/g, ''), 'base64'));
    return undefined;
  } catch {
    return 'x509: malformed certificate request';
  }
}

interface CSRSpec {
  request?: string;
  signerName?: string;
  usages?: string[];
}

function specOf(csr: KubeObject): CSRSpec {
  return (csr.spec as CSRSpec | undefined) ?? {};
}

/** What every write of a CSR meets: a request that parses and a signer. */
function requestErrors(spec: CSRSpec): FieldError[] {
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  if (!spec.request) errors.push(required(path.child('request')));
  else {
    const problem = requestProblem(spec.request);
    if (problem !== undefined) errors.push(invalid(path.child('request'), spec.request, problem));
  }
  if (!spec.signerName) errors.push(required(path.child('signerName')));
  return errors;
}

export function validateCertificateSigningRequest(csr: KubeObject): FieldError[] {
  const spec = specOf(csr);
  const errors = requestErrors(spec);
  const usages = spec.usages ?? [];
  const path = FieldPath.root('spec', 'usages');
  if (usages.length === 0) errors.push(required(path));
  usages.forEach((usage, i) => {
    if (!KNOWN_USAGES.includes(usage)) errors.push(notSupported(path.index(i), usage, KNOWN_USAGES));
    if (usages.indexOf(usage) !== i) errors.push(duplicate(path.index(i), usage));
  });
  return errors;
}

/**
 * Updates keep what a stored request already has (usages an older server let in included). The
 * conditions' Approved-and-Denied rule is also declared, so the declarative validation gates
 * decide which of its two texts a client reads.
 */
function updateErrors(
  csr: KubeObject,
  old: KubeObject,
  context: WriteContext,
  options: { readonly settingDecisions: boolean },
): FieldError[] {
  return withDeclarativeValidation(
    context,
    [
      ...requestErrors(specOf(csr)),
      ...conditionErrors(csr, old),
      ...issuedCertificateErrors(csr, old),
      ...decisionChangeErrors(csr, old, options),
      ...certificateChangeErrors(csr, old),
    ],
    () => certificateSigningRequestDeclarativeErrors(csr, old),
  );
}

/** An update of the request or of its status: neither decides it. */
export function validateCertificateSigningRequestUpdate(
  csr: KubeObject,
  old: KubeObject,
  context: WriteContext,
): FieldError[] {
  return updateErrors(csr, old, context, { settingDecisions: false });
}

/** A write through `approval`, which may approve or deny. */
export function validateCertificateSigningRequestApproval(
  csr: KubeObject,
  old: KubeObject,
  context: WriteContext,
): FieldError[] {
  return updateErrors(csr, old, context, { settingDecisions: true });
}
