/**
 * certificates.k8s.io ClusterTrustBundle rules, after the reference's: a signer's bundle is
 * named after its signer, a signer name is `<domain>/<path>`, and the bundle is PEM
 * certificates, each a CA, none twice. Parsed with node:crypto's X509Certificate.
 */
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, immutable, invalid, required, tooLong } from '../status/field-errors';
import { isDNS1123Label, isDNS1123Subdomain, nameIsDNSSubdomain, type NameValidator } from './names';
import { pemBlocks } from './pem-blocks';

const DNS1123_SUBDOMAIN_MAX = 253;
const DNS1123_LABEL_MAX = 63;
/** certificates.MaxTrustBundleSize. */
const MAX_TRUST_BUNDLE_BYTES = 1024 * 1024;

interface BundleSpec {
  signerName?: string;
  trustBundle?: string;
}

function specOf(bundle: KubeObject): BundleSpec {
  return (bundle.spec as BundleSpec | undefined) ?? {};
}

/** The reference's ValidateSignerName: `example.com/signer-name`, each part of DNS labels. */
export function validateSignerName(path: FieldPath, signerName: string): FieldError[] {
  if (signerName === '') return [required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2)
    return [
      invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'"),
    ];
  const [domain, rest] = segments;
  const errors: FieldError[] = [];
  if (domain.length > DNS1123_SUBDOMAIN_MAX) errors.push(tooLong(path, DNS1123_SUBDOMAIN_MAX));
  const domainLabels = domain.split('.');
  // The first bad label is enough: the next ones would only repeat it.
  for (const label of domainLabels) {
    const problems = isDNS1123Label(label);
    if (problems.length === 0) continue;
    errors.push(
      ...problems.map((problem) => invalid(path, domain, `validating label ${JSON.stringify(label)}: ${problem}`)),
    );
    break;
  }
  if (domainLabels.length < 2)
    errors.push(invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of rest.split('.')) {
    const problems = isDNS1123Subdomain(label);
    if (problems.length === 0) continue;
    errors.push(
      ...problems.map((problem) => invalid(path, rest, `validating label ${JSON.stringify(label)}: ${problem}`)),
    );
    break;
  }
  const maxLength = DNS1123_SUBDOMAIN_MAX + (DNS1123_SUBDOMAIN_MAX + DNS1123_LABEL_MAX + 1) + 1;
  if (signerName.length > maxLength) errors.push(tooLong(path, maxLength));
  return errors;
}

/** A bundle of a signer is named `<signer with ':' for '/'>:<name>`; one of no signer has no ':'. */
export function clusterTrustBundleNameRule(bundle: KubeObject): NameValidator {
  return clusterTrustBundleNameOf(specOf(bundle).signerName ?? '');
}

/** The names a bundle of `signerName` (empty: of no signer) may take (ValidateClusterTrustBundleName). */
export function clusterTrustBundleNameOf(signerName: string): NameValidator {
  return (name, prefix) => {
    if (signerName === '')
      return name.includes(':')
        ? ['ClusterTrustBundle without signer name must not have ":" in its name']
        : nameIsDNSSubdomain(name, prefix);
    const requiredPrefix = `${signerName.replaceAll('/', ':')}:`;
    if (!name.startsWith(requiredPrefix))
      return [`ClusterTrustBundle for signerName ${signerName} must be named with prefix ${requiredPrefix}`];
    return nameIsDNSSubdomain(name.slice(requiredPrefix.length), prefix);
  };
}

const OMITTED = '<value omitted>';

function validateTrustBundle(path: FieldPath, bundle: string): FieldError[] {
  if (Buffer.byteLength(bundle) > MAX_TRUST_BUNDLE_BYTES) return [tooLong(path, MAX_TRUST_BUNDLE_BYTES)];
  const errors: FieldError[] = [];
  const indicesOf = new Map<string, number[]>();
  pemBlocks(bundle).forEach(({ type, hasHeaders, der }, i) => {
    if (type !== 'CERTIFICATE') return errors.push(invalid(path, OMITTED, `entry ${i} has bad block type: ${type}`));
    if (hasHeaders) return errors.push(invalid(path, OMITTED, `entry ${i} has PEM block headers`));
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(der);
    } catch {
      return errors.push(invalid(path, OMITTED, `entry ${i} does not parse as X.509`));
    }
    // Node reads the CA bit from the basic constraints, so a CA always has valid ones.
    if (!certificate.ca) return errors.push(invalid(path, OMITTED, `entry ${i} does not have the CA bit set`));
    const key = der.toString('base64');
    indicesOf.set(key, [...(indicesOf.get(key) ?? []), i]);
  });
  // A malformed block says enough: no redundant complaints about missing or repeated anchors.
  if (errors.length > 0) return errors;
  if (indicesOf.size === 0) return [invalid(path, OMITTED, 'at least one trust anchor must be provided')];
  return [...indicesOf.values()]
    .filter((indices) => indices.length > 1)
    .map((indices) => invalid(path, OMITTED, `duplicate trust anchor (indices [${indices.join(' ')}])`));
}

export function validateClusterTrustBundle(bundle: KubeObject): FieldError[] {
  const spec = specOf(bundle);
  return [
    ...(spec.signerName ? validateSignerName(FieldPath.root('spec', 'signerName'), spec.signerName) : []),
    ...validateTrustBundle(FieldPath.root('spec', 'trustBundle'), spec.trustBundle ?? ''),
  ];
}

/** The signer never changes; an unchanged bundle is not parsed again (Go's parser may have moved on). */
export function validateClusterTrustBundleUpdate(bundle: KubeObject, old: KubeObject): FieldError[] {
  const [spec, oldSpec] = [specOf(bundle), specOf(old)];
  return [
    ...(spec.signerName ? validateSignerName(FieldPath.root('spec', 'signerName'), spec.signerName) : []),
    ...(spec.trustBundle === oldSpec.trustBundle
      ? []
      : validateTrustBundle(FieldPath.root('spec', 'trustBundle'), spec.trustBundle ?? '')),
    ...immutable(FieldPath.root('spec', 'signerName'), spec.signerName ?? '', oldSpec.signerName ?? ''),
  ];
}
