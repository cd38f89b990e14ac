/**
 * `/version`: the Kubernetes release capstan serves (1.34) and facts about this build. The
 * version is semver with build metadata (`v1.34.0+capstan`) so clients that compare versions
 * treat it as 1.34.0. Build facts come from the environment (set by an image build:
 * CAPSTAN_GIT_COMMIT, CAPSTAN_GIT_TREE_STATE, CAPSTAN_BUILD_DATE), else from the checkout and
 * the compiled file itself; they are read once, on the first request, to keep start-up short.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RequestHandler } from 'express';
import { metaTime } from '../../api/objects';

/** Field names and order of the reference's `version.Info`. */
export interface VersionInfo {
  readonly major: string;
  readonly minor: string;
  readonly emulationMajor: string;
  readonly emulationMinor: string;
  readonly minCompatibilityMajor: string;
  readonly minCompatibilityMinor: string;
  readonly gitVersion: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
  readonly goVersion: string;
  readonly compiler: string;
  readonly platform: string;
}

export const KUBERNETES_MAJOR = '1';
export const KUBERNETES_MINOR = '34';
const GIT_VERSION = `v${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}.0+capstan`;

export function versionInfo(): VersionInfo {
  return {
    major: KUBERNETES_MAJOR,
    minor: KUBERNETES_MINOR,
    emulationMajor: KUBERNETES_MAJOR,
    emulationMinor: KUBERNETES_MINOR,
    minCompatibilityMajor: KUBERNETES_MAJOR,
    minCompatibilityMinor: String(Number(KUBERNETES_MINOR) - 1),
    gitVersion: GIT_VERSION,
    gitCommit: process.env.CAPSTAN_GIT_COMMIT ?? checkoutCommit() ?? '',
    gitTreeState: process.env.CAPSTAN_GIT_TREE_STATE ?? '',
    buildDate: process.env.CAPSTAN_BUILD_DATE ?? compiledAt(),
    // The runtime in the place of Go's toolchain fields.
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
  };
}

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };

/** `--version=raw`: the fields as Go's `%#v` prints the reference's `version.Info`. */
export function rawVersion(info: VersionInfo): string {
  const fields = Object.entries(info).map(
    ([name, value]) => `${name.charAt(0).toUpperCase()}${name.slice(1)}:${JSON.stringify(value)}`,
  );
  return `version.Info{${fields.join(', ')}}`;
}

export function versionHandler(): RequestHandler {
  let body: string | undefined;
  return (_req, res) => {
    body ??= JSON.stringify(versionInfo(), null, 2);
    res.setHeader('Content-Type', 'application/json');
    res.end(body);
  };
}

/** The commit of the checkout this file lies in, if any. */
function checkoutCommit(): string | undefined {
  let dir = __dirname;
  for (let depth = 0; depth < 5; depth++, dir = dirname(dir)) {
    const gitDir = join(dir, '.git');
    if (!existsSync(join(gitDir, 'HEAD'))) continue;
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head;
    const ref = head.slice('ref: '.length);
    const loose = join(gitDir, ref);
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    const packed = join(gitDir, 'packed-refs');
    if (!existsSync(packed)) return undefined;
    const line = readFileSync(packed, 'utf8')
      .split('\n')
      .find((entry) => entry.endsWith(` ${ref}`));
    return line?.split(' ')[0];
  }
  return undefined;
}

/** When this file was compiled, as the reference formats build dates. */
function compiledAt(): string {
  return metaTime(statSync(__filename).mtime);
}
