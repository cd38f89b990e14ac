/**
 * certificates.k8s.io PodCertificateRequest rules (v1alpha1), after the reference's
 * ValidatePodCertificateRequestCreate and ValidatePodCertificateRequestUpdate: the request names
 * its pod, service account and node with their UIDs, asks a signer for at most its longest
 * lifetime (a day for `kubernetes.io` signers, 91 days for others), and proves it holds the
 * private key of its PKIX public key by signing the pod's UID (Ed25519; ECDSA P-256, P-384 or
 * P-521 over its SHA-256; RSA-PSS of 3072 or 4096 bits over its SHA-256). After create its spec
 * never changes. Keys are read and signatures checked with node:crypto.
 */
import { constants, createPublicKey, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { metaTime, type KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import {
  deepEqual,
  FieldPath,
  GoValue,
  immutable,
  invalid,
  invalidWithoutValue,
  notSupported,
  required,
  tooLong,
} from '../status/field-errors';
import { validateConditions, type Condition } from './conditions';
import { pemBlocks } from './pem-blocks';
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
export const MIN_MAX_EXPIRATION_SECONDS = 60 * 60;
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

/** The longest maxExpirationSeconds a signer's certificates may ask for: a day for the project's own signers. */
export function longestMaxExpirationSeconds(signerName: string): number {
  return isKubernetesSignerName(signerName) ? KUBERNETES_MAX_EXPIRATION_SECONDS : MAX_EXPIRATION_SECONDS;
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
  const longest = longestMaxExpirationSeconds(signerName);
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

/**
 * An update: the spec never changes (a status write keeps it), and the status only as
 * ValidatePodCertificateRequestStatusUpdate lets it (an ordinary update keeps it).
 */
export function validatePodCertificateRequestUpdate(request: KubeObject, old: KubeObject): FieldError[] {
  const specErrors = immutable(spec, specOf(request), specOf(old), goSpec(specOf(request)));
  return specErrors.length > 0 ? specErrors : validateStatusUpdate(request, old, new Date());
}

interface PodCertificateRequestStatus {
  conditions?: Condition[];
  certificateChain?: string;
  notBefore?: string | null;
  notAfter?: string | null;
  beginRefreshAt?: string | null;
}

const TERMINAL_CONDITIONS = ['Issued', 'Denied', 'Failed'];
/** certificates.MaxCertificateChainSize. */
const MAX_CHAIN_BYTES = 100 * 1024;
const STATUS = FieldPath.root('status');
const CHAIN_PATH = STATUS.child('certificateChain');
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

function statusOf(request: KubeObject): PodCertificateRequestStatus {
  return (request.status as PodCertificateRequestStatus | undefined) ?? {};
}

/** The status as Go holds it, so that equality ignores what decoding leaves at its zero value. */
function goStatus(status: PodCertificateRequestStatus): unknown {
  return {
    conditions: (status.conditions ?? []).map((condition) => ({
      type: condition.type ?? '',
      status: condition.status ?? '',
      observedGeneration: condition.observedGeneration ?? 0,
      lastTransitionTime: condition.lastTransitionTime ?? null,
      reason: condition.reason ?? '',
      message: condition.message ?? '',
    })),
    certificateChain: status.certificateChain ?? '',
    notBefore: status.notBefore ?? null,
    notAfter: status.notAfter ?? null,
    beginRefreshAt: status.beginRefreshAt ?? null,
  };
}

function unchanged(next: PodCertificateRequestStatus, old: PodCertificateRequestStatus, detail: string): FieldError[] {
  return deepEqual(goStatus(next), goStatus(old)) ? [] : [invalidWithoutValue(STATUS, detail)];
}

function holds(status: PodCertificateRequestStatus, type: string): boolean {
  return (status.conditions ?? []).some((condition) => condition.type === type && condition.status === 'True');
}

/** The reference's condition path, which names the index as a field: `status.conditions.[0].type`. */
function conditionPath(index: number, member: string): FieldPath {
  return STATUS.child('conditions', `[${index}]`, member);
}

/** At most one of the terminal conditions, each True, and nothing else. */
function conditionErrors(conditions: readonly Condition[]): FieldError[] {
  const errors: FieldError[] = [];
  let terminal = 0;
  for (const [index, condition] of conditions.entries()) {
    const type = condition.type ?? '';
    if (!TERMINAL_CONDITIONS.includes(type)) {
      errors.push(notSupported(conditionPath(index, 'type'), type, TERMINAL_CONDITIONS));
      continue;
    }
    terminal++;
    if (terminal > 1)
      errors.push(
        invalid(
          conditionPath(index, 'type'),
          type,
          'There may be at most one condition with type "Issued", "Denied", or "Failed"',
        ),
      );
    if (condition.status !== 'True')
      errors.push(notSupported(conditionPath(index, 'status'), condition.status ?? '', ['True']));
  }
  return [...errors, ...validateConditions(conditions, STATUS.child('conditions'))];
}

/** A status time as the reference prints a time.Time it refuses: marshalled, RFC 3339 in UTC. */
function goTime(text: string): string {
  return metaTime(new Date(text));
}

/** A lifetime as the reference prints a time.Duration it refuses: marshalled, in nanoseconds. */
function goDuration(ms: number): number {
  return ms * 1_000_000;
}

/** The issued chain: PEM certificates, the leaf issued to the requested key, its times in the status. */
function issuedErrors(request: KubeObject, old: KubeObject, now: Date): FieldError[] {
  const status = statusOf(request);
  const chain = status.certificateChain ?? '';
  if (Buffer.byteLength(chain) > MAX_CHAIN_BYTES) return [tooLong(CHAIN_PATH, MAX_CHAIN_BYTES)];
  const [leafBlock, ...rest] = pemBlocks(chain);
  if (leafBlock === undefined)
    return [invalid(CHAIN_PATH, chain, 'issued certificate chain must contain at least one certificate')];
  if (leafBlock.type !== 'CERTIFICATE')
    return [invalid(CHAIN_PATH, chain, 'issued certificate chain must consist entirely of CERTIFICATE PEM blocks')];
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(leafBlock.der);
  } catch {
    return [invalid(CHAIN_PATH, chain, 'leaf certificate does not parse as valid X.509')];
  }
  const requested = specOf(old).pkixPublicKey;
  const key = pkixPublicKey(requested);
  if (key === undefined) return [invalid(KEY_PATH, requested, 'must be a valid PKIX-serialized public key')];
  if (!key.equals(leaf.publicKey))
    return [invalid(CHAIN_PATH, chain, 'leaf certificate was not issued to the requested public key')];
  const missing: FieldError[] = [];
  const consistent = 'must be present and consistent with the issued certificate';
  if (!status.notBefore) missing.push(required(STATUS.child('notBefore'), consistent));
  if (!status.notAfter) missing.push(required(STATUS.child('notAfter'), consistent));
  if (!status.beginRefreshAt)
    missing.push(
      required(STATUS.child('beginRefreshAt'), 'must be present and in the range [notbefore+10min, notafter-10min]'),
    );
  if (missing.length > 0) return missing;
  const notBefore = new Date(status.notBefore!).getTime();
  const notAfter = new Date(status.notAfter!).getTime();
  const beginRefreshAt = new Date(status.beginRefreshAt!).getTime();
  const leafNotBefore = new Date(leaf.validFrom).getTime();
  const leafNotAfter = new Date(leaf.validTo).getTime();
  const timeError = (member: 'notBefore' | 'notAfter' | 'beginRefreshAt', detail: string) => [
    invalid(STATUS.child(member), goTime(status[member]!), detail),
  ];
  if (notBefore !== leafNotBefore)
    return timeError('notBefore', 'must be set to the NotBefore time encoded in the leaf certificate');
  if (Math.abs(notBefore - now.getTime()) >= 5 * MINUTE_MS)
    return timeError('notBefore', "must be set to within 5 minutes of kube-apiserver's current time");
  if (notAfter !== leafNotAfter)
    return timeError('notAfter', 'must be set to the NotAfter time encoded in the leaf certificate');
  const lifetime = leafNotAfter - leafNotBefore;
  if (lifetime < HOUR_MS)
    return [invalid(CHAIN_PATH, goDuration(lifetime), 'leaf certificate lifetime must be >= 1 hour')];
  const maxSeconds = specOf(request).maxExpirationSeconds ?? DEFAULT_MAX_EXPIRATION_SECONDS;
  if (lifetime > maxSeconds * 1000)
    return [
      invalid(
        CHAIN_PATH,
        goDuration(lifetime),
        `leaf certificate lifetime must be <= spec.maxExpirationSeconds (${maxSeconds})`,
      ),
    ];
  if (beginRefreshAt < notBefore + 10 * MINUTE_MS)
    return timeError('beginRefreshAt', 'must be at least 10 minutes after status.notBefore');
  if (beginRefreshAt > notAfter - 10 * MINUTE_MS)
    return timeError('beginRefreshAt', 'must be at least 10 minutes before status.notAfter');
  for (const block of rest) {
    // "CERTFICATE" as the reference spells it here.
    if (block.type !== 'CERTIFICATE')
      return [invalid(CHAIN_PATH, chain, 'issued certificate chain must consist entirely of CERTFICATE PEM blocks')];
    try {
      new X509Certificate(block.der);
    } catch {
      return [invalid(CHAIN_PATH, chain, 'intermediate certificate does not parse as valid X.509')];
    }
  }
  return [];
}

/**
 * The reference's ValidatePodCertificateRequestStatusUpdate past metadata: conditions drive it.
 * A request issued, denied or failed is final; denying or failing sets conditions only; issuing
 * gives a chain the status agrees with; nothing else may change.
 */
function validateStatusUpdate(request: KubeObject, old: KubeObject, now: Date): FieldError[] {
  const next = statusOf(request);
  const errors = conditionErrors(next.conditions ?? []);
  if (errors.length > 0) return errors;
  const previous = statusOf(old);
  if (TERMINAL_CONDITIONS.some((type) => holds(previous, type)))
    return unchanged(next, previous, 'immutable after PodCertificateRequest is issued, denied, or failed');
  if (holds(next, 'Denied') || holds(next, 'Failed'))
    return unchanged(
      next,
      { conditions: next.conditions },
      'non-condition status fields must be empty when denying or failing the PodCertificateRequest',
    );
  if (holds(next, 'Issued')) return issuedErrors(request, old, now);
  return unchanged(next, previous, 'status is immutable unless transitioning to "Issued", "Denied", or "Failed"');
}
