/**
 * Hidden metrics, as component-base's metrics framework hides them: a metric deprecated in a
 * release before the running minor (1.34) is not registered unless
 * `--show-hidden-metrics-for-version` names the previous minor, which shows every hidden metric
 * again, for one more release, so operators notice before the metric goes for good. A deprecated
 * metric's help says since when.
 */

/** The minor version this server speaks (kube-apiserver 1.34). */
export const SERVED_VERSION = { major: 1, minor: 34 } as const;

/** The flag's value, when it names the previous minor; the reference's message otherwise. */
export function checkShowHiddenMetricsVersion(value: string): string | undefined {
  if (value === '') return undefined;
  const previous = `${SERVED_VERSION.major}.${SERVED_VERSION.minor - 1}`;
  if (value !== previous) {
    throw new Error(`--show-hidden-metrics-for-version must be omitted or have the value '${previous}'. Only the previous minor version is allowed`);
  }
  return value;
}

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
