/**
 * The Pod Security Standards' levels and versions, and the policy a namespace's labels
 * (`pod-security.kubernetes.io/{enforce,audit,warn}[-version]`) ask for over the configured
 * defaults, with the reference's parse errors and its fallbacks: an unreadable enforce label
 * enforces restricted, an unreadable audit or warn level is privileged.
 */
import { FieldPath, invalid as invalidField } from '../../../status/field-errors';
import type { FieldError } from '../../../status/field-error';

export type Level = 'privileged' | 'baseline' | 'restricted';
export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A Kubernetes minor version of the standards (major is always 1), or `latest`. */
export type Version = { readonly latest: true } | { readonly latest: false; readonly minor: number };
export const LATEST: Version = { latest: true };

export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}

export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

export type Mode = keyof Policy;
export const MODES: readonly Mode[] = ['enforce', 'audit', 'warn'];

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const levelLabel = (mode: Mode) => `${LABEL_PREFIX}${mode}`;
export const versionLabel = (mode: Mode) => `${LABEL_PREFIX}${mode}-version`;

export function versionString(version: Version): string {
  return version.latest ? 'latest' : `v1.${version.minor}`;
}

export function levelVersionString({ level, version }: LevelVersion): string {
  return `${level}:${versionString(version)}`;
}

/** Whether `a` is older than `b` (latest is newer than every numbered version). */
export function older(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.minor < b.minor;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && versionString(a.version) === versionString(b.version);
}

/** Equal, or both privileged (which has no checks whatever the version). */
export function equivalent(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === 'privileged' && b.level === 'privileged') || sameLevelVersion(a, b);
}

export function compareLevels(a: Level, b: Level): number {
  return LEVELS.indexOf(a) - LEVELS.indexOf(b);
}

export function fullyPrivileged(policy: Policy): boolean {
  return MODES.every((mode) => policy[mode].level === 'privileged');
}

const LEVEL_ERROR = `must be one of ${LEVELS.join(', ')}`;
const VERSION_ERROR = 'must be "latest" or "v1.x"';
const VERSION_PATTERN = /^v1\.([0-9]|[1-9][0-9]*)$/;

export function parseLevel(text: string): Level | undefined {
  return (LEVELS as readonly string[]).includes(text) ? (text as Level) : undefined;
}

export function parseVersion(text: string): Version | undefined {
  if (text === 'latest') return LATEST;
  const match = VERSION_PATTERN.exec(text);
  return match ? { latest: false, minor: Number(match[1]) } : undefined;
}

/** The message of a level or version that does not parse, as the reference's validation gives it. */
export const levelError = (text: string) => (parseLevel(text) === undefined ? LEVEL_ERROR : undefined);
export const versionError = (text: string) => (parseVersion(text) === undefined ? VERSION_ERROR : undefined);

export interface EvaluatedPolicy {
  readonly policy: Policy;
  /** Errors of labels that do not parse (the policy then holds the fallbacks). */
  readonly errors: readonly FieldError[];
}

const LABELS_PATH = FieldPath.root('metadata', 'labels');

/** The policy the labels ask for, on top of `defaults`, as the reference's PolicyToEvaluate reads them. */
export function policyOfLabels(
  labels: Readonly<Record<string, string>> | undefined,
  defaults: Policy,
): EvaluatedPolicy {
  const errors: FieldError[] = [];
  if (labels === undefined || Object.keys(labels).length === 0) return { policy: defaults, errors };
  const result: Record<Mode, { level: Level; version: Version }> = {
    enforce: { ...defaults.enforce },
    audit: { ...defaults.audit },
    warn: { ...defaults.warn },
  };
  const fail = (label: string, value: string, detail: string) =>
    errors.push(invalidField(LABELS_PATH.key(label), value, detail));
  let enforceLevelGiven = false;
  for (const mode of MODES) {
    const levelText = labels[levelLabel(mode)];
    if (levelText !== undefined) {
      const level = parseLevel(levelText);
      if (level === undefined) fail(levelLabel(mode), levelText, LEVEL_ERROR);
      // An unreadable enforce level fails closed; audit and warn fail open.
      result[mode].level = level ?? (mode === 'enforce' ? 'restricted' : 'privileged');
      if (mode === 'enforce') enforceLevelGiven = level !== undefined;
    }
    const versionText = labels[versionLabel(mode)];
    if (versionText !== undefined) {
      const version = parseVersion(versionText);
      if (version === undefined) fail(versionLabel(mode), versionText, VERSION_ERROR);
      result[mode].version = version ?? LATEST;
    }
  }
  // Without its own level, warn follows a stricter enforce level (and its version, without its own).
  if (
    labels[levelLabel('warn')] === undefined &&
    enforceLevelGiven &&
    compareLevels(result.enforce.level, result.warn.level) > 0
  ) {
    result.warn.level = result.enforce.level;
    if (labels[versionLabel('warn')] === undefined) result.warn.version = result.enforce.version;
  }
  return { policy: result, errors };
}
