/**
 * Hidden metrics, as component-base's metrics framework hides them: a metric deprecated in a
 * release before the running minor (1.34) is not registered unless
 * `--show-hidden-metrics-for-version` names the previous minor, which shows every hidden metric
 * again, for one more release, so operators notice before the metric goes for good. A deprecated
 * metric's help says since when.
 */
import { SERVED_VERSION } from '../config/show-hidden-metrics';

/** A metric deprecated in `deprecatedVersion` (`1.30.0`): whether it is registered at all. */
export function metricShown(deprecatedVersion: string, showHidden: boolean): boolean {
  if (showHidden) return true;
  const [major, minor] = deprecatedVersion.split('.').map(Number);
  return major > SERVED_VERSION.major || (major === SERVED_VERSION.major && minor >= SERVED_VERSION.minor);
}

/** The help of a deprecated metric, as the reference words it. */
export function deprecatedHelp(deprecatedVersion: string, help: string): string {
  return `(Deprecated since ${deprecatedVersion}) ${help}`;
}
