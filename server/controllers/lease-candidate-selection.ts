/**
 * Which LeaseCandidate coordinated leader election elects, and under which strategy, as the
 * reference's election rules (pkg/controlplane/controller/leaderelection/election.go) decide:
 *
 * - the strategy is that of the candidates at the highest binary version; two of them at that
 *   version asking for different strategies is an error, and no election happens;
 * - under `OldestEmulationVersion` the electee has the lowest emulation version, then the lowest
 *   binary version, then the earliest creation; a candidate whose versions do not parse (with
 *   blang/semver's tolerant parser) is never elected, and compares as version 0.0.0.
 *
 * Times are MicroTimes in whole microseconds since the epoch.
 */
import type { KubeObject } from '../../api/objects';
import { parseSemverNormalized, type Semver } from '../cel/libraries/semver';
import { microseconds } from '../validation/events';

export const OLDEST_EMULATION_VERSION = 'OldestEmulationVersion';
/** A candidate not renewed for this long is ignored by elections and then collected. */
export const LEASE_CANDIDATE_VALID_MICROS = 30 * 60 * 1_000_000;

export interface CandidateSpec {
  leaseName?: string;
  binaryVersion?: string;
  emulationVersion?: string;
  strategy?: string;
  renewTime?: string;
  pingTime?: string;
}

export function candidateSpec(candidate: KubeObject): CandidateSpec {
  return (candidate.spec ?? {}) as CandidateSpec;
}

/** A MicroTime field's instant, or undefined when unset (or not a time). */
export function instantOf(time: string | undefined): number | undefined {
  return microseconds(time) ?? undefined;
}

/** blang/semver's ParseTolerant: spaces and a leading `v` dropped, short versions filled. */
function tolerantVersion(text: string | undefined): Semver | undefined {
  const parsed = parseSemverNormalized((text ?? '').trim());
  return typeof parsed === 'string' ? undefined : parsed;
}

const ZERO = tolerantVersion('0.0.0') as Semver;
const versionOrZero = (text: string | undefined): Semver => tolerantVersion(text) ?? ZERO;

/** -1 when `left` is the better leader, 1 when `right` is. */
function compareCandidates(left: KubeObject, right: KubeObject): number {
  const byEmulation = versionOrZero(candidateSpec(left).emulationVersion).compareTo(
    versionOrZero(candidateSpec(right).emulationVersion),
  );
  if (byEmulation !== 0) return byEmulation;
  const byBinary = versionOrZero(candidateSpec(left).binaryVersion).compareTo(
    versionOrZero(candidateSpec(right).binaryVersion),
  );
  if (byBinary !== 0) return byBinary;
  // Ties go to the earlier candidate; equal creation times keep the one seen first.
  const created = (candidate: KubeObject) => Date.parse(String(candidate.metadata.creationTimestamp ?? ''));
  return created(left) > created(right) ? 1 : -1;
}

/** The `OldestEmulationVersion` electee among `candidates`, or undefined when none has parsable versions. */
export function oldestEmulationVersionLeader(candidates: readonly KubeObject[]): KubeObject | undefined {
  let electee: KubeObject | undefined;
  for (const candidate of candidates) {
    const spec = candidateSpec(candidate);
    if (tolerantVersion(spec.emulationVersion) === undefined || tolerantVersion(spec.binaryVersion) === undefined)
      continue;
    if (electee === undefined || compareCandidates(electee, candidate) > 0) electee = candidate;
  }
  return electee;
}

/** The strategy the newest binaries ask for, or (as `{ error }`) why there is none. */
export function strategyOf(candidates: readonly KubeObject[]): { strategy: string } | { error: string } {
  if (candidates.length === 0) return { error: 'no candidates' };
  let chosen = candidates[0];
  let highest = versionOrZero(candidateSpec(chosen).binaryVersion);
  for (const candidate of candidates.slice(1)) {
    const binary = versionOrZero(candidateSpec(candidate).binaryVersion);
    const order = highest.compareTo(binary);
    if (order < 0) {
      chosen = candidate;
      highest = binary;
    } else if (order === 0 && candidateSpec(candidate).strategy !== candidateSpec(chosen).strategy) {
      return {
        error: `candidates "${chosen.metadata.name}", "${candidate.metadata.name}" at same binary version but received differing strategies ${candidateSpec(chosen).strategy}, ${candidateSpec(candidate).strategy}`,
      };
    }
  }
  return { strategy: candidateSpec(chosen).strategy ?? '' };
}

/** Whether a candidate has not been renewed within the valid duration (or never was). */
export function isCandidateExpired(candidate: KubeObject, nowMicros: number): boolean {
  const renewed = instantOf(candidateSpec(candidate).renewTime);
  return renewed === undefined || renewed + LEASE_CANDIDATE_VALID_MICROS < nowMicros;
}
