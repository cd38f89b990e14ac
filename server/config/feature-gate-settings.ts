/**
 * `--feature-gates` as the reference settles it once every flag is read: a gate locked to its
 * default refuses the other value, `AllAlpha`/`AllBeta` set every alpha/beta gate the operator
 * did not name, and naming a GA or deprecated gate earns a warning, since it goes away soon.
 */
import { FEATURE_GATES, type FeatureGateSpec } from './feature-gates';
import { goAggregate } from '../../api/go-json-syntax';

export interface FeatureGateSettings {
  /** Every gate the flags decide: the ones named, and those `AllAlpha`/`AllBeta` set. */
  readonly gates: Readonly<Record<string, boolean>>;
  readonly warnings: readonly string[];
}

/** The umbrella gates and the stage each one sets. */
const UMBRELLAS: ReadonlyArray<readonly [string, FeatureGateSpec['stage']]> = [
  ['AllAlpha', 'ALPHA'],
  ['AllBeta', 'BETA'],
];

/**
 * Settles the gates named by the flags. Throws with the reference's text: its locked-gate
 * refusals gathered in name order, as far as the first unknown name, which ends the check.
 */
export function settleFeatureGates(named: Readonly<Record<string, boolean>>): FeatureGateSettings {
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const gate of Object.keys(named).sort()) {
    const spec = FEATURE_GATES[gate];
    if (spec === undefined) {
      problems.push(`unrecognized feature gate: ${gate}`);
      break;
    }
    const value = named[gate];
    if (spec.locked && value !== spec.default)
      problems.push(`cannot set feature gate ${gate} to ${value}, feature is locked to ${spec.default}`);
    else if (spec.stage === 'GA')
      warnings.push(`Setting GA feature gate ${gate}=${value}. It will be removed in a future release.`);
    else if (spec.stage === 'DEPRECATED')
      warnings.push(`Setting deprecated feature gate ${gate}=${value}. It will be removed in a future release.`);
  }
  if (problems.length > 0) throw new Error(goAggregate(problems));

  const gates: Record<string, boolean> = { ...named };
  for (const [umbrella, stage] of UMBRELLAS) {
    const value = named[umbrella];
    if (value === undefined) continue;
    for (const [gate, spec] of Object.entries(FEATURE_GATES)) {
      if (spec.stage === stage && !spec.locked && !(gate in named) && !UMBRELLAS.some(([name]) => name === gate))
        gates[gate] = value;
    }
  }
  return { gates, warnings };
}
