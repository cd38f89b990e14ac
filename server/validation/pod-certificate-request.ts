/**
 * certificates.k8s.io PodCertificateRequest rules (v1alpha1), after the reference's
 * ValidatePodCertificateRequestCreate and ValidatePodCertificateRequestUpdate: the request names
 * its pod, service account and node with their UIDs, asks a signer for at most its longest
 * lifetime (a day for `kubernetes.io` signers, 91 days for others), and proves it holds the
 * private key of its PKIX public key by signing the pod's UID (Ed25519; ECDSA P-256, P-384 or
 * P-521 over its SHA-256; RSA-PSS of 3072 or 4096 bits over its SHA-256). After create its spec
 * never changes. Keys are read and signatures checked with node:crypto.
 */
import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, GoValue, immutable, invalid, invalidWithoutValue, required, tooLong } from '../status/field-errors';
import { validateSignerName } from './cluster-trust-bundle';
import { isDNS1123Subdomain } from './names';

interface PodCertificateRequestSpec {
  signerName?: string;
  podName?: string;
  podUID?: string;
  serviceAccountName?: string;
  serviceAccountUID?: string;
  nodeName?: string;
  nodeUID?: string;
  maxExpirationSeconds?: number;
  /** Base64 of the DER bytes, as JSON carries a []byte. */
  pkixPublicKey?: string;
  proofOfPossession?: string;
}

/** certificates.MinMaxExpirationSeconds, KubernetesMaxMaxExpirationSeconds, MaxMaxExpirationSeconds. */
const MIN_MAX_EXPIRATION_SECONDS = 60 * 60;
const KUBERNETES_MAX_EXPIRATION_SECONDS = 24 * 60 * 60;
const MAX_EXPIRATION_SECONDS = 91 * 24 * 60 * 60;
/** certificates.MaxPKIXPublicKeySize and MaxProofOfPossessionSize, in bytes. */
const MAX_KEY_BYTES = 10 * 1024;
const MAX_PROOF_BYTES = 10 * 1024;
const MAX_UID_BYTES = 128;

/** The default of an omitted maxExpirationSeconds (a day), as v1alpha1's defaulting sets it. */
export const DEFAULT_MAX_EXPIRATION_SECONDS = 86_400;

const spec = FieldPath.root('spec');
const KEY_PATH = spec.child('pkixPublicKey');
const PROOF_PATH = spec.child('proofOfPossession');
const PROOF_FAILED = 'could not verify proof-of-possession signature';

function specOf(request: KubeObject): PodCertificateRequestSpec {
  return (request.spec as PodCertificateRequestSpec | undefined) ?? {};
}

/** The signers of the Kubernetes project (`kubernetes.io/...`, `*.kubernetes.io/...`). */
function isKubernetesSignerName(signerName: string): boolean {
  const host = signerName.split('/', 1)[0];
  return host === 'kubernetes.io' || host.endsWith('.kubernetes.io');
}

function bytesOf(base64: string | undefined): Buffer {
  return Buffer.from(base64 ?? '', 'base64');
}

/** The curves Go's x509 reads, by node:crypto's names; the last three are the ones allowed. */
const GO_CURVES: Readonly<Record<string, string>> = {
  secp224r1: 'P-224',
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
};
const ALLOWED_CURVES = new Set(['P-256', 'P-384', 'P-521']);
/** Key types Go's ParsePKIXPublicKey reads but a request may not use. */
const UNSUPPORTED_KEY_TYPES = new Set(['dsa', 'x25519']);

/** The proof-of-possession check of one public key, in the reference's order and words. */
function proofErrors(key: KeyObject, keyText: string | undefined, podUID: string, proof: Buffer): FieldError[] {
  const signed = Buffer.from(podUID);
  switch (key.asymmetricKeyType) {
    case 'ed25519':
      return verify(null, signed, key, proof) ? [] : [invalidWithoutValue(PROOF_PATH, PROOF_FAILED)];
    case 'ec': {
      const curve = GO_CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
      if (curve === undefined) return [invalid(KEY_PATH, keyText, 'must be a valid PKIX-serialized public key')];
      if (!ALLOWED_CURVES.has(curve))
        return [invalid(KEY_PATH, `curve ${curve}`, 'elliptic public keys must use curve P256 or P384')];
      return verify('sha256', signed, key, proof) ? [] : [invalidWithoutValue(PROOF_PATH, PROOF_FAILED)];
    }
    case 'rsa': {
      const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
      if (bits !== 3072 && bits !== 4096)
        return [invalid(KEY_PATH, `${bits}-bit modulus`, 'RSA keys must have modulus size 3072 or 4096')];
      const pss = { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO };
      return verify('sha256', signed, pss, proof) ? [] : [invalidWithoutValue(PROOF_PATH, PROOF_FAILED)];
    }
    default:
      return [
        invalid(
          KEY_PATH,
          keyText,
          UNSUPPORTED_KEY_TYPES.has(key.asymmetricKeyType ?? '')
            ? 'unknown public key type; supported types are Ed25519, ECDSA, and RSA'
            : 'must be a valid PKIX-serialized public key',
        ),
      ];
  }
}

/** The public key a request carries, or undefined when its bytes are no PKIX public key. */
export function pkixPublicKey(base64: string | undefined): KeyObject | undefined {
  try {
    return createPublicKey({ key: bytesOf(base64), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

function nameErrors(path: FieldPath, name: string | undefined): FieldError[] {
  const value = name ?? '';
  return isDNS1123Subdomain(value).map((message) => invalid(path, value, message));
}

function uidErrors(path: FieldPath, uid: string | undefined): FieldError[] {
  const value = uid ?? '';
  const errors = value === '' ? [invalid(path, value, 'must not be empty')] : [];
  if (Buffer.byteLength(value) > MAX_UID_BYTES) errors.push(tooLong(path, MAX_UID_BYTES));
  return errors;
}

export function validatePodCertificateRequestCreate(request: KubeObject): FieldError[] {
  const given = specOf(request);
  const signerName = given.signerName ?? '';
  const errors = [
    ...validateSignerName(spec.child('signerName'), signerName),
    ...nameErrors(spec.child('podName'), given.podName),
    ...uidErrors(spec.child('podUID'), given.podUID),
    ...nameErrors(spec.child('serviceAccountName'), given.serviceAccountName),
    ...uidErrors(spec.child('serviceAccountUID'), given.serviceAccountUID),
    ...nameErrors(spec.child('nodeName'), given.nodeName),
    ...uidErrors(spec.child('nodeUID'), given.nodeUID),
  ];
  const maxSeconds = given.maxExpirationSeconds;
  if (maxSeconds === undefined || maxSeconds === null) {
    errors.push(required(spec.child('maxExpirationSeconds'), 'must be set'));
    return errors;
  }
  const longest = isKubernetesSignerName(signerName) ? KUBERNETES_MAX_EXPIRATION_SECONDS : MAX_EXPIRATION_SECONDS;
  if (maxSeconds < MIN_MAX_EXPIRATION_SECONDS || maxSeconds > longest)
    errors.push(
      invalid(
        spec.child('maxExpirationSeconds'),
        maxSeconds,
        `must be in the range [${MIN_MAX_EXPIRATION_SECONDS}, ${longest}]`,
      ),
    );
  const keyBytes = bytesOf(given.pkixPublicKey);
  if (keyBytes.length > MAX_KEY_BYTES) return [...errors, tooLong(KEY_PATH, MAX_KEY_BYTES)];
  const proof = bytesOf(given.proofOfPossession);
  if (proof.length > MAX_PROOF_BYTES) return [...errors, tooLong(PROOF_PATH, MAX_PROOF_BYTES)];
  const key = pkixPublicKey(given.pkixPublicKey);
  if (key === undefined)
    return [...errors, invalid(KEY_PATH, given.pkixPublicKey, 'must be a valid PKIX-serialized public key')];
  return [...errors, ...proofErrors(key, given.pkixPublicKey, given.podUID ?? '', proof)];
}

/**
 * The spec as the reference prints it when it changes: its internal struct marshalled, Go's
 * field names in their order, bytes in base64 (null when absent).
 */
function goSpec(given: PodCertificateRequestSpec): GoValue {
  return new GoValue(
    JSON.stringify({
      SignerName: given.signerName ?? '',
      PodName: given.podName ?? '',
      PodUID: given.podUID ?? '',
      ServiceAccountName: given.serviceAccountName ?? '',
      ServiceAccountUID: given.serviceAccountUID ?? '',
      NodeName: given.nodeName ?? '',
      NodeUID: given.nodeUID ?? '',
      MaxExpirationSeconds: given.maxExpirationSeconds ?? null,
      PKIXPublicKey: given.pkixPublicKey || null,
      ProofOfPossession: given.proofOfPossession || null,
    }),
  );
}

/** Past create only metadata changes: every spec field is immutable. */
export function validatePodCertificateRequestUpdate(request: KubeObject, old: KubeObject): FieldError[] {
  return immutable(spec, specOf(request), specOf(old), goSpec(specOf(request)));
}
