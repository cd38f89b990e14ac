/**
 * The subject of a CertificateSigningRequest's `spec.request` (base64 of a PEM "CERTIFICATE
 * REQUEST" block), which admission decides by: who a certificate would name, and which groups.
 */
import { loadX509 } from '../x509-library';

export interface CSRSubject {
  readonly commonName: string;
  readonly organizations: readonly string[];
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;

/** Throws an Error saying what is wrong, as the reference's ParseCSR does. */
export function csrSubject(request: unknown): CSRSubject {
  const pem = typeof request === 'string' ? Buffer.from(request, 'base64').toString('latin1') : '';
  const block = PEM_BLOCK.exec(pem);
  if (block === null || block[1] !== 'CERTIFICATE REQUEST')
    throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const x509 = loadX509();
  let parsed: InstanceType<typeof x509.Pkcs10CertificateRequest>;
  try {
    parsed = new x509.Pkcs10CertificateRequest(Buffer.from(block[2].replace(/\s/g, ''), 'base64'));
  } catch (error) {
    throw new Error(`asn1: ${(error as Error).message}`);
  }
  return { commonName: parsed.subjectName.getField('CN')[0] ?? '', organizations: parsed.subjectName.getField('O') };
}
