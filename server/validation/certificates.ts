/**
 * certificates.k8s.io/v1 CertificateSigningRequest rules, after the reference's: the request
 * is a PEM-encoded PKCS#10 request (checked as written; its signature is the signer's to
 * check), the usages are known ones, each once, the signer a domain and path (not the legacy
 * `kubernetes.io/legacy-unknown`, which only v1beta1 took), a requested duration at least ten
 * minutes. The parser loads on the first request checked.
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
import { validateSignerName } from './cluster-trust-bundle';

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
  expirationSeconds?: number | null;
}

function specOf(csr: KubeObject): CSRSpec {
  return (csr.spec as CSRSpec | undefined) ?? {};
}

/** The request: a PEM request that parses; one left out is Go's nil bytes, printed null. */
function requestErrors(spec: CSRSpec): FieldError[] {
  const path = FieldPath.root('spec', 'request');
  const request = spec.request ?? null;
  const problem = requestProblem(request ?? '');
  return problem === undefined ? [] : [invalid(path, request, problem)];
}

/** The signer who is to sign it (v1 refuses the legacy one). */
function signerErrors(spec: CSRSpec): FieldError[] {
  const path = FieldPath.root('spec', 'signerName');
  const signerName = spec.signerName ?? '';
  if (signerName === LEGACY_UNKNOWN_SIGNER)
    return [invalid(path, signerName, 'the legacy signerName is not allowed via this API version')];
  return validateSignerName(path, signerName);
}

const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';
/** The shortest certificate duration a request may ask for. */
const MIN_EXPIRATION_SECONDS = 600;

export function validateCertificateSigningRequest(csr: KubeObject): FieldError[] {
  const spec = specOf(csr);
  const errors = requestErrors(spec);
  const usages = spec.usages ?? [];
  const path = FieldPath.root('spec', 'usages');
  if (usages.length === 0) errors.push(required(path));
  usages.forEach((usage, i) => {
    if (!KNOWN_USAGES.includes(usage)) errors.push(notSupported(path.index(i), usage, KNOWN_USAGES));
  });
  usages.forEach((usage, i) => {
    if (usages.indexOf(usage) !== i) errors.push(duplicate(path.index(i), usage));
  });
  errors.push(...signerErrors(spec));
  const expiration = spec.expirationSeconds;
  if (typeof expiration === 'number' && expiration < MIN_EXPIRATION_SECONDS)
    errors.push(
      invalid(
        FieldPath.root('spec', 'expirationSeconds'),
        expiration,
        'may not specify a duration less than 600 seconds (10 minutes)',
      ),
    );
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
      // A signer kept from the stored request stands, as the reference lets a legacy one stand.
      ...(specOf(csr).signerName === specOf(old).signerName ? [] : signerErrors(specOf(csr))),
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
