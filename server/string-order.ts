/**
 * Go's string order (`sort.Strings`, `strings.Compare`): by code unit, which for the ASCII of
 * Kubernetes names is the reference's byte order. Not `localeCompare`: it orders differently
 * (`B` after `a`, `-` and `.` ignored at first) and its first call loads ICU's collator and
 * collation data, about 5 MiB of resident memory that an idle server would keep.
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
