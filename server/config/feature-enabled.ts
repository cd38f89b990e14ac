/** Whether a feature gate is on: as `--feature-gates` set it, else its 1.34 default. */
import { FEATURE_GATES } from './feature-gates';

export function featureEnabled(overrides: Readonly<Record<string, boolean>>, gate: string): boolean {
  return overrides[gate] ?? FEATURE_GATES[gate]?.default ?? false;
}
