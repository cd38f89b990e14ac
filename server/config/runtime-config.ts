/**
 * `--runtime-config`: which group-versions (and single resources) the server serves, as the
 * reference decides it. Keys are `api/all`, `api/ga`, `api/beta`, `api/alpha`, `<group>/<version>`
 * (`v1` or `api/v1` for the core group) and `<group>/<version>/<resource>`; values are Go
 * booleans, and a key without a value means true. The most specific key wins: resource over
 * group-version over stability class over `api/all`. Without any key only GA versions are served:
 * the reference lists every beta and alpha group-version as disabled by default
 * (pkg/controlplane/instance.go, DefaultAPIResourceConfigSource).
 *
 *   const enabled = runtimeConfigEnabled({ config: options.runtimeConfig, registered });
 *   const registry = builtinRegistry({ enabled });
 */
import type { GroupVersion } from '../../api/identity';
import { GO_BOOLEANS } from './flag-values';
import { goAggregate } from '../../api/go-json-syntax';

export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeConfigError';
  }
}

type Stability = 'ga' | 'beta' | 'alpha';

const STABILITY_KEYS = ['api/all', 'api/ga', 'api/beta', 'api/alpha'];

export interface RuntimeConfigOptions {
  /** `--runtime-config` as parsed by the flags: key → value ('' when the key had none). */
  readonly config: Readonly<Record<string, string>>;
  /**
   * Every group-version the server's schemes register, served or not
   * (server/config/registered-group-versions.ts): a key may name any of them.
   */
  readonly registered: readonly GroupVersion[];
  /** `--enable-priority-and-fairness`: its controller needs flowcontrol's v1, which may not be switched off. */
  readonly priorityAndFairness?: boolean;
}

/** Keys that would switch flowcontrol.apiserver.k8s.io/v1 off, in the reference's order of precedence. */
const PRIORITY_AND_FAIRNESS_KEYS = ['flowcontrol.apiserver.k8s.io/v1', 'api/ga', 'api/all'];

export type EnabledFunction = (groupVersion: GroupVersion, resource: string) => boolean;

/**
 * Throws `RuntimeConfigError` with the reference's message, checked in its order: the shape of
 * the keys and unknown groups first (all of them at once), then each value and version.
 */
export function runtimeConfigEnabled(options: RuntimeConfigOptions): EnabledFunction {
  const registeredVersions = new Set(options.registered.map(groupVersionKey));
  const registeredGroups = new Set(options.registered.map(({ group }) => group));
  const entries = Object.entries(options.config).map(([rawKey, value]) => ({
    rawKey,
    key: normalizeKey(rawKey),
    value,
  }));

  const problems: string[] = [];
  const flowControlOff = options.priorityAndFairness
    ? PRIORITY_AND_FAIRNESS_KEYS.find((key) => options.config[key] === 'false')
    : undefined;
  if (flowControlOff !== undefined)
    problems.push(`--runtime-config=${flowControlOff}=false conflicts with --enable-priority-and-fairness=true`);
  if (options.config['api/all'] === 'false' && entries.length === 1)
    problems.push('invalid key with only api/all=false');
  const unknownGroups: string[] = [];
  for (const { rawKey, key } of entries) {
    if (STABILITY_KEYS.includes(key)) continue;
    const tokens = key.split('/');
    if (tokens.length < 2 || tokens.length > 3) throw new RuntimeConfigError(`runtime-config invalid key ${rawKey}`);
    if (!registeredGroups.has(tokens[0])) unknownGroups.push(tokens[0]);
  }
  if (unknownGroups.length > 0) problems.push(`unknown api groups ${unknownGroups.sort().join(',')}`);
  if (problems.length > 0) throw new RuntimeConfigError(goAggregate(problems));

  const settings = new Map<string, boolean>();
  for (const key of STABILITY_KEYS) {
    const value = options.config[key];
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false') throw new RuntimeConfigError(`invalid value ${key}=${value}`);
    settings.set(key, value === 'true');
  }
  for (const { rawKey, key, value } of entries) {
    if (STABILITY_KEYS.includes(key)) continue;
    const [group, version, resource] = key.split('/');
    if (!registeredVersions.has(`${group}/${version}`))
      throw new RuntimeConfigError(
        `group version ${group === '' ? version : `${group}/${version}`} that has not been registered`,
      );
    const enabled = value === '' ? true : GO_BOOLEANS[value];
    if (enabled === undefined)
      throw new RuntimeConfigError(
        `invalid value of ${rawKey}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
      );
    if (resource !== undefined && resource.toLowerCase() !== resource)
      throw new RuntimeConfigError(
        `invalid key ${rawKey}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`,
      );
    settings.set(key, enabled);
  }

  return (groupVersion, resource) => {
    const gv = groupVersionKey(groupVersion);
    const stability = stabilityOf(groupVersion.version);
    return (
      settings.get(`${gv}/${resource}`) ??
      settings.get(gv) ??
      settings.get(`api/${stability}`) ??
      settings.get('api/all') ??
      stability === 'ga'
    );
  };
}

/** `/v1` for the core group, as keys name it after normalizing. */
function groupVersionKey({ group, version }: GroupVersion): string {
  return `${group}/${version}`;
}

/** `v1`, `api/v1` and `api/v1/<resource>` name the core group; others are `<group>/<version>[/<resource>]`. */
function normalizeKey(key: string): string {
  if (key === 'v1') return '/v1';
  if (key === 'api/v1' || key.startsWith('api/v1/')) return key.slice('api'.length);
  return key;
}

function stabilityOf(version: string): Stability {
  if (/^v\d+alpha\d+$/.test(version)) return 'alpha';
  if (/^v\d+beta\d+$/.test(version)) return 'beta';
  return 'ga';
}
