/**
 * A CertificateSigningRequest's status.certificate on update, after the reference: PEM
 * CERTIFICATE blocks only, without headers, each holding a certificate that parses; once
 * issued, never changed or taken away. A certificate the write does not touch, or a stored one
 * that already breaks the rules, is not judged.
 */
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, invalid } from '../status/field-errors';
import { pemBlocks } from './pem-blocks';

const PATH = FieldPath.root('status', 'certificate');

/** The certificate's bytes (JSON carries them in base64). */
const certificateOf = (csr: KubeObject): Buffer =>
  Buffer.from((csr.status as { certificate?: string } | undefined)?.certificate ?? '', 'base64');

/** Why the PEM is no issued certificate, in the reference's words, or undefined. */
function certificateProblem(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = pemBlocks(pem.toString('latin1'));
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE')
      return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.hasHeaders) return 'no PEM block headers are permitted';
    if (block.der.length === 0) return 'found CERTIFICATE PEM block containing 0 certificates';
    try {
      new X509Certificate(block.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return undefined;
}

/** The written certificate's form; judged only when the write changes it. */
export function issuedCertificateErrors(csr: KubeObject, old: KubeObject): FieldError[] {
  const written = certificateOf(csr);
  if (written.equals(certificateOf(old)) || certificateProblem(certificateOf(old)) !== undefined) return [];
  const problem = certificateProblem(written);
  return problem === undefined ? [] : [invalid(PATH, '<certificate data>', problem)];
}

/**
 * Once a certificate is issued it stays. (Only a status write can change it at all: an update of
 * the request and an approval keep the stored status, so the reference's "may not set" for
 * those never fires.)
 */
export function certificateChangeErrors(csr: KubeObject, old: KubeObject): FieldError[] {
  const stored = certificateOf(old);
  return stored.length > 0 && !certificateOf(csr).equals(stored)
    ? [forbidden(PATH, 'updates may not modify existing certificate content')]
    : [];
}
