/**
 * `--runtime-config`: which group-versions (and single resources) the server serves, as the
 * reference decides it. Keys are `api/all`, `api/ga`, `api/beta`, `api/alpha`, `<group>/<version>`
 * (`v1` or `api/v1` for the core group) and `<group>/<version>/<resource>`; values are Go
 * booleans. The most specific key wins: resource over group-version over stability class over
 * `api/all`. Without any key only GA versions are served: 1.34 switches every beta version it
 * has off by default (controlplane's betaAPIGroupVersionsDisabledByDefault), like its alphas.
 *
 *   const enabled = runtimeConfigEnabled({ config: options.runtimeConfig, known });
 *   const registry = builtinRegistry({ enabled });
 */
import type { GroupVersion } from '../../api/identity';
import { GO_BOOLEANS } from './flag-values';

export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeConfigError';
  }
}

type Stability = 'ga' | 'beta' | 'alpha';

export interface RuntimeConfigOptions {
  /** `--runtime-config` as parsed by the flags: key → value. */
  readonly config: Readonly<Record<string, string>>;
  /** Every group-version the server can serve: keys naming others are rejected. */
  readonly known: readonly GroupVersion[];
}

export type EnabledFunction = (groupVersion: GroupVersion, resource: string) => boolean;

/** Throws `RuntimeConfigError` for an unknown group-version or a value that is not a boolean. */
export function runtimeConfigEnabled(options: RuntimeConfigOptions): EnabledFunction {
  const knownKeys = new Set(options.known.map(groupVersionKey));
  const settings = new Map<string, boolean>();
  const unknown: string[] = [];
  for (const [rawKey, rawValue] of Object.entries(options.config)) {
    const value = GO_BOOLEANS[rawValue];
    if (value === undefined)
      throw new RuntimeConfigError(
        `invalid value of ${rawKey}: ${rawValue}, err: strconv.ParseBool: parsing ${JSON.stringify(rawValue)}: invalid syntax`,
      );
    const key = normalizeKey(rawKey);
    if (!['api/all', 'api/ga', 'api/beta', 'api/alpha'].includes(key)) {
      const [group, version] = key.split('/');
      if (!knownKeys.has(`${group}/${version}`)) unknown.push(rawKey);
    }
    settings.set(key, value);
  }
  if (unknown.length > 0) throw new RuntimeConfigError(`unknown api groups ${unknown.sort().join(',')}`);

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
