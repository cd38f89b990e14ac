/**
 * `--show-hidden-metrics-for-version`, checked as the flag is parsed: only the minor before the
 * one this server speaks is accepted (server/metrics/hidden-metrics.ts applies it).
 */

/** The minor version this server speaks (kube-apiserver 1.34). */
export const SERVED_VERSION = { major: 1, minor: 34 } as const;

/** The flag's value, when it names the previous minor; the reference's message otherwise. */
export function checkShowHiddenMetricsVersion(value: string): string | undefined {
  if (value === '') return undefined;
  const previous = `${SERVED_VERSION.major}.${SERVED_VERSION.minor - 1}`;
  if (value !== previous) {
    throw new Error(
      `--show-hidden-metrics-for-version must be omitted or have the value '${previous}'. Only the previous minor version is allowed`,
    );
  }
  return value;
}
