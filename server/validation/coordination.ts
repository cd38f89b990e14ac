/** coordination.k8s.io rules: Leases (v1) and LeaseCandidates (v1beta1, v1alpha2), as the reference validates them. */
import type { KubeObject } from '../../api/objects';
import { parseSemver, type Semver } from '../cel/libraries/semver';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, immutable, invalid, notSupported, required } from '../status/field-errors';
import { isQualifiedName } from './names';

/** The strategies Kubernetes itself defines; others must be qualified names (`example.com/mine`). */
const LEASE_STRATEGIES = ['OldestEmulationVersion'];

interface LeaseCandidateSpec {
  leaseName?: string;
  binaryVersion?: string;
  emulationVersion?: string;
  strategy?: string;
}

function specOf(object: KubeObject): LeaseCandidateSpec {
  return (object.spec ?? {}) as LeaseCandidateSpec;
}

/** A parsed version, or the zero version after recording why it is not one. */
function version(text: string, path: FieldPath, errors: FieldError[]): Semver | undefined {
  const parsed = parseSemver(text);
  if (typeof parsed !== 'string') return parsed;
  errors.push(invalid(path, text, 'must be a valid semantic version'));
  return undefined;
}

/** A coordinated lease's strategy: a Kubernetes-defined name or a qualified custom one. */
function validateStrategy(strategy: string, path: FieldPath): FieldError[] {
  if (!strategy.includes('/'))
    return LEASE_STRATEGIES.includes(strategy) ? [] : [notSupported(path, strategy, LEASE_STRATEGIES)];
  return isQualifiedName(strategy).map((message) => invalid(path, strategy, message));
}

interface LeaseSpec {
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

/** A Lease's spec; the same rules on create and update. */
export function validateLease(lease: KubeObject): FieldError[] {
  const spec = (lease.spec ?? {}) as LeaseSpec;
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0)
    errors.push(invalid(path.child('leaseDurationSeconds'), spec.leaseDurationSeconds, 'must be greater than 0'));
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0)
    errors.push(invalid(path.child('leaseTransitions'), spec.leaseTransitions, 'must be greater than or equal to 0'));
  if (typeof spec.strategy === 'string')
    errors.push(...validateStrategy(spec.strategy, path.child('strategy').child('strategy')));
  if (spec.preferredHolder && !spec.strategy)
    errors.push(forbidden(path.child('preferredHolder'), 'may only be specified if `strategy` is defined'));
  return errors;
}

function validateLeaseCandidateSpec(spec: LeaseCandidateSpec): FieldError[] {
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  if (!spec.leaseName) errors.push(required(path.child('leaseName')));
  const emulation = spec.emulationVersion
    ? version(spec.emulationVersion, path.child('emulationVersion'), errors)
    : undefined;
  let binary: Semver | undefined;
  if (!spec.binaryVersion) errors.push(required(path.child('binaryVersion')));
  else binary = version(spec.binaryVersion, path.child('binaryVersion'), errors);
  // An unparsable version compares as 0.0.0, as the reference's zero value does.
  const zero = parseSemver('0.0.0') as Semver;
  if (spec.binaryVersion && spec.emulationVersion && (binary ?? zero).compareTo(emulation ?? zero) < 0)
    errors.push(
      invalid(path.child('binaryVersion'), spec.binaryVersion, 'must be greater than or equal to `emulationVersion`'),
    );
  if (!spec.strategy) errors.push(required(path.child('strategy')));
  else {
    if (spec.strategy === 'OldestEmulationVersion' && (emulation ?? zero).compareTo(zero) === 0)
      errors.push(
        required(path.child('emulationVersion'), "must be specified when `strategy` is 'OldestEmulationVersion'"),
      );
    // The reference nests the field once more here: spec.strategy.strategy.
    errors.push(...validateStrategy(spec.strategy, path.child('strategy').child('strategy')));
  }
  return errors;
}

export function validateLeaseCandidate(candidate: KubeObject): FieldError[] {
  return validateLeaseCandidateSpec(specOf(candidate));
}

export function validateLeaseCandidateUpdate(candidate: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateLeaseCandidateSpec(specOf(candidate)),
    ...immutable(FieldPath.root('spec', 'leaseName'), specOf(candidate).leaseName, specOf(old).leaseName),
  ];
}
