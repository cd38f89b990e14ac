/**
 * Reading a pod's metadata and spec as JSON (the v1 form) the way the checks need it, and the
 * phrasing helpers every check's message shares, so that the texts come out as the reference's.
 */
export type Fields = Record<string, unknown>;

export interface PodView {
  readonly annotations: Readonly<Record<string, string>>;
  readonly spec: Fields;
}

/** What a check finds: nothing (allowed), or the reason and detail of its refusal. */
export type CheckResult =
  { readonly allowed: true } | { readonly allowed: false; readonly reason: string; readonly detail: string };

export const ALLOWED: CheckResult = { allowed: true };
export const forbid = (reason: string, detail: string): CheckResult => ({ allowed: false, reason, detail });

export const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
export const list = (value: unknown): Fields[] => (Array.isArray(value) ? value.map(record) : []);
export const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
/** Whether a JSON field holds something (the reference's non-nil pointer). */
export const present = (value: unknown): boolean => value !== undefined && value !== null;

/** Init containers, containers, then ephemeral containers, as the reference visits them. */
export function containers(spec: Fields): Fields[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
}

export const containerName = (container: Fields): string => String(container.name ?? '');
export const securityContext = (owner: Fields): Fields => record(owner.securityContext);
export const isWindows = (spec: Fields): boolean => record(spec.os).name === 'windows';

export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `container "a"` / `containers "a", "b"`. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** A set's members sorted as Go sorts strings (by bytes; the same order for the ASCII names here). */
export function sorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}
