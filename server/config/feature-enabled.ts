/** Whether a feature gate is on: as `--feature-gates` set it, else its 1.34 default. */
import { FEATURE_GATES } from './feature-gates';

export function featureEnabled(overrides: Readonly<Record<string, boolean>>, gate: string): boolean {
  return overrides[gate] ?? FEATURE_GATES[gate]?.default ?? false;
}

/** The question "is this gate on?" bound to the gates the flags set, for those that only ask it. */
export function featureGateReader(overrides: Readonly<Record<string, boolean>>): (gate: string) => boolean {
  return (gate) => featureEnabled(overrides, gate);
}
