/**
 * A webhook's caBundle as the reference's `util/webhook` ValidateCABundle checks it: it builds a
 * TLS configuration from it, which needs at least one certificate Go's AppendCertsFromPEM takes,
 * and otherwise says why none was.
 */
import { X509Certificate } from 'node:crypto';
import type { FieldError } from '../status/field-error';
import { FieldPath, invalid } from '../status/field-errors';
import { decodePEM } from './pem-blocks';

function parsesAsCertificate(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why no certificate of the bundle can be trusted, as client-go's rootCertPool reports it, or
 * undefined when one can. Blocks of other types or with headers are skipped; the walk stops at
 * the first stretch that is no PEM block, and the first certificate that does not parse is named.
 */
function rootCertificatesProblem(bundle: Buffer): string | undefined {
  let problem: string | undefined;
  for (let rest = bundle; rest.length > 0;) {
    const { block, rest: after } = decodePEM(rest);
    if (block === undefined) {
      problem ??= 'unable to parse bytes as PEM block';
      break;
    }
    rest = after;
    if (block.type !== 'CERTIFICATE' || block.hasHeaders) continue;
    if (parsesAsCertificate(block.bytes)) return undefined;
    // Go's certificate parser fails first on the outer SEQUENCE of such bytes, and names it so.
    problem ??= 'failed to parse certificate: x509: malformed certificate';
  }
  return problem ?? 'no valid certificate authority data seen';
}

/** The reference's ValidateCABundle over the base64 text of the bundle; an empty one is not checked. */
export function validateCABundle(path: FieldPath, caBundle: string | undefined): FieldError[] {
  if (!caBundle) return [];
  const problem = rootCertificatesProblem(Buffer.from(caBundle, 'base64'));
  // The bytes are shown as Go marshals them to JSON: base64 text.
  return problem === undefined ? [] : [invalid(path, caBundle, `unable to load root certificates: ${problem}`)];
}

/** Whether a non-empty stored bundle fails the check, which lets an update keep an invalid one. */
export function isInvalidCABundle(caBundle: string | undefined): boolean {
  return validateCABundle(FieldPath.root('caBundle'), caBundle).length > 0;
}
