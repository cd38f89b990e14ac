/**
 * The Pod Security Standards as data: every check with its level and the function each version
 * of the standards runs from its minimum minor version on, and the baseline checks a restricted
 * check replaces. `evaluate` runs the checks of one level and version in the reference's order
 * (baseline checks by id, then restricted checks by id) and gathers the refusals.
 */
import * as baseline from './baseline';
import { older, type Level, type LevelVersion, type Version } from './levels';
import type { CheckResult, PodView } from './pod-view';
import * as restricted from './restricted';

type CheckFunction = (pod: PodView) => CheckResult;

interface VersionedCheck {
  /** The first minor version (of 1.x) this function applies to, until the next entry's. */
  readonly since: number;
  readonly check: CheckFunction;
  /** Baseline checks this restricted check replaces at these versions. */
  readonly overrides?: readonly string[];
}

interface Check {
  readonly id: string;
  readonly level: Exclude<Level, 'privileged'>;
  readonly versions: readonly VersionedCheck[];
}

/** The newest version of the standards this server knows; newer and `latest` evaluate as it. */
export const NEWEST_MINOR = 34;

/** Feature-gated relaxations the reference applies to some checks. */
export interface CheckOptions {
  /** UserNamespacesPodSecurityStandards: pods with `hostUsers: false` pass the user and /proc checks. */
  readonly relaxForUserNamespacePods: boolean;
}

const CHECKS = (options: CheckOptions): readonly Check[] => {
  const relaxed = (check: CheckFunction): CheckFunction =>
    options.relaxForUserNamespacePods
      ? (pod) => (pod.spec.hostUsers === false ? { allowed: true } : check(pod))
      : check;
  return [
    { id: 'appArmorProfile', level: 'baseline', versions: [{ since: 0, check: baseline.appArmorProfile }] },
    { id: 'capabilities_baseline', level: 'baseline', versions: [{ since: 0, check: baseline.capabilitiesBaseline }] },
    { id: 'hostNamespaces', level: 'baseline', versions: [{ since: 0, check: baseline.hostNamespaces }] },
    { id: 'hostPathVolumes', level: 'baseline', versions: [{ since: 0, check: baseline.hostPathVolumes }] },
    { id: 'hostPorts', level: 'baseline', versions: [{ since: 0, check: baseline.hostPorts }] },
    {
      id: 'hostProbesAndHostLifecycle',
      level: 'baseline',
      versions: [{ since: 34, check: baseline.hostProbesAndHostLifecycle }],
    },
    { id: 'privileged', level: 'baseline', versions: [{ since: 0, check: baseline.privileged }] },
    { id: 'procMount', level: 'baseline', versions: [{ since: 0, check: relaxed(baseline.procMount) }] },
    {
      id: 'seLinuxOptions',
      level: 'baseline',
      versions: [
        { since: 0, check: baseline.seLinuxOptions1_0 },
        { since: 31, check: baseline.seLinuxOptions1_31 },
      ],
    },
    {
      id: 'seccompProfile_baseline',
      level: 'baseline',
      versions: [
        { since: 0, check: baseline.seccompProfileBaseline1_0 },
        { since: 19, check: baseline.seccompProfileBaseline1_19 },
      ],
    },
    {
      id: 'sysctls',
      level: 'baseline',
      versions: [
        { since: 0, check: baseline.sysctls1_0 },
        { since: 27, check: baseline.sysctls1_27 },
        { since: 29, check: baseline.sysctls1_29 },
        { since: 32, check: baseline.sysctls1_32 },
      ],
    },
    { id: 'windowsHostProcess', level: 'baseline', versions: [{ since: 0, check: baseline.windowsHostProcess }] },
    {
      id: 'allowPrivilegeEscalation',
      level: 'restricted',
      versions: [
        { since: 8, check: restricted.allowPrivilegeEscalation1_8 },
        { since: 25, check: restricted.exceptWindows(restricted.allowPrivilegeEscalation1_8) },
      ],
    },
    {
      id: 'capabilities_restricted',
      level: 'restricted',
      versions: [
        { since: 22, check: restricted.capabilitiesRestricted1_22, overrides: ['capabilities_baseline'] },
        {
          since: 25,
          check: restricted.exceptWindows(restricted.capabilitiesRestricted1_22),
          overrides: ['capabilities_baseline'],
        },
      ],
    },
    {
      id: 'restrictedVolumes',
      level: 'restricted',
      versions: [{ since: 0, check: restricted.restrictedVolumes, overrides: ['hostPathVolumes'] }],
    },
    { id: 'runAsNonRoot', level: 'restricted', versions: [{ since: 0, check: relaxed(restricted.runAsNonRoot) }] },
    { id: 'runAsUser', level: 'restricted', versions: [{ since: 23, check: relaxed(restricted.runAsUser) }] },
    {
      id: 'seccompProfile_restricted',
      level: 'restricted',
      versions: [
        { since: 19, check: restricted.seccompProfileRestricted1_19, overrides: ['seccompProfile_baseline'] },
        {
          since: 25,
          check: restricted.exceptWindows(restricted.seccompProfileRestricted1_19),
          overrides: ['seccompProfile_baseline'],
        },
      ],
    },
  ];
};

/** The entry of a check in force at `minor`, if the check exists by then. */
function inForce(check: Check, minor: number): VersionedCheck | undefined {
  return [...check.versions].reverse().find((entry) => entry.since <= minor);
}

/** The refusals of one evaluation, in order: reasons and their details. */
export interface Violations {
  readonly reasons: readonly string[];
  readonly details: readonly string[];
}

/** `reason (detail), reason (detail)`: the reference's aggregate detail. */
export function violationText({ reasons, details }: Violations): string {
  return reasons.map((reason, index) => (details[index] === '' ? reason : `${reason} (${details[index]})`)).join(', ');
}

export interface Evaluator {
  evaluate(levelVersion: LevelVersion, pod: PodView): Violations;
}

export function podSecurityEvaluator(options: CheckOptions): Evaluator {
  const checks = CHECKS(options);
  const byId = (a: Check, b: Check) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const ordered = [
    ...checks.filter((check) => check.level === 'baseline').sort(byId),
    ...checks.filter((check) => check.level === 'restricted').sort(byId),
  ];
  // Per level and minor version, the functions to run: computed once, as the reference's registry does.
  const plans = new Map<string, readonly CheckFunction[]>();
  const planFor = (level: Exclude<Level, 'privileged'>, minor: number): readonly CheckFunction[] => {
    const key = `${level}:${minor}`;
    const known = plans.get(key);
    if (known) return known;
    const active = ordered
      .filter((check) => level === 'restricted' || check.level === 'baseline')
      .map((check) => ({ check, entry: inForce(check, minor) }))
      .filter((candidate): candidate is { check: Check; entry: VersionedCheck } => candidate.entry !== undefined);
    const overridden = new Set(
      active.filter(({ check }) => check.level === 'restricted').flatMap(({ entry }) => entry.overrides ?? []),
    );
    const plan = active.filter(({ check }) => !overridden.has(check.id)).map(({ entry }) => entry.check);
    plans.set(key, plan);
    return plan;
  };
  return {
    evaluate({ level, version }, pod) {
      const reasons: string[] = [];
      const details: string[] = [];
      if (level === 'privileged') return { reasons, details };
      const newest: Version = { latest: false, minor: NEWEST_MINOR };
      const minor = older(newest, version) ? NEWEST_MINOR : (version as { minor: number }).minor;
      for (const check of planFor(level, minor)) {
        const result = check(pod);
        if (result.allowed) continue;
        reasons.push(result.reason === '' ? 'unknown forbidden reason' : result.reason);
        details.push(result.detail);
      }
      return { reasons, details };
    },
  };
}
