/**
 * Another project's compiled Go test suite run against an API server binary, as
 * /work/shared/notes/outside-suites.md describes: controller-runtime's test binaries, built
 * outside the tree, run from their package directory in the Go module cache (their testdata
 * paths are relative), envtest finding the API server through TEST_ASSET_KUBE_APISERVER and
 * Debian's etcd through TEST_ASSET_ETCD. What a run gives: its wall time and Ginkgo's counts.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { killOnExit } from './scratch';

const CONTROLLER_RUNTIME = 'v0.22.5';
const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const SUITE_TIMEOUT_MS = 20 * 60_000;
const OUTPUT_TAIL_CHARS = 8_000;
const ANSI_ESCAPE = /\x1b\[[0-9;]*m/g;

export interface OutsideSuite {
  /** e.g. `controller-runtime v0.22.5 pkg/envtest`. */
  readonly title: string;
  /** The compiled test binary. */
  readonly binary: string;
  /** Where it runs from: its package in the module cache. */
  readonly packageDir: string;
}

export interface SuiteRun {
  readonly wallMs: number;
  readonly exitCode: number | null;
  /** Specs Ginkgo ran, and of how many; NaN when it printed no summary. */
  readonly ran: number;
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  /** Ginkgo's `[FAIL]` lines and summary, for the person reading the log. */
  readonly failures: readonly string[];
}

/** controller-runtime's test binary for `pkg/<pkg>` (e.g. `envtest`), failing clearly when it is not built. */
export function controllerRuntimeSuite(pkg: string): OutsideSuite {
  const binary = join(homedir(), '.cache', 'outside-suites', `controller-runtime-${CONTROLLER_RUNTIME}`, `${pkg}.test`);
  const packageDir = join(goModCache(), 'sigs.k8s.io', `controller-runtime@${CONTROLLER_RUNTIME}`, 'pkg', pkg);
  if (!existsSync(binary)) throw new Error(`${binary} is not built (see /work/shared/notes/outside-suites.md)`);
  if (!existsSync(packageDir)) throw new Error(`${packageDir} is not in the module cache`);
  return { title: `controller-runtime ${CONTROLLER_RUNTIME} pkg/${pkg}`, binary, packageDir };
}

/** Runs the whole suite against `apiServer` (the binary envtest starts) and a fresh etcd per control plane. */
export async function runSuite(suite: OutsideSuite, apiServer: string): Promise<SuiteRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEST_ASSET_KUBE_APISERVER: apiServer,
    TEST_ASSET_ETCD: etcdBinary(),
  };
  if (existsSync(KUBECTL)) env.TEST_ASSET_KUBECTL = KUBECTL;
  const began = performance.now();
  // Plain output: Ginkgo colours its summary, which the counts are read from.
  const child = spawn(suite.binary, ['-ginkgo.no-color'], {
    cwd: suite.packageDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  let tail = '';
  const failures: string[] = [];
  const onOutput = (chunk: Buffer) => {
    const text = chunk.toString('utf8').replace(ANSI_ESCAPE, '');
    tail = (tail + text).slice(-OUTPUT_TAIL_CHARS);
    for (const line of text.split('\n')) if (/^\s*\[FAIL\]/.test(line)) failures.push(line.trim());
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const killer = setTimeout(() => child.kill('SIGKILL'), SUITE_TIMEOUT_MS);
  const exitCode = await new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  clearTimeout(killer);
  const wallMs = performance.now() - began;
  const ran = /Ran (\d+) of (\d+) Specs/.exec(tail);
  const counted = /(\d+) Passed \| (\d+) Failed/.exec(tail);
  const summary = tail.split('\n').filter((line) => /Ran \d+ of|SUCCESS!|FAIL!|BeforeSuite|panic:/.test(line));
  return {
    wallMs,
    exitCode,
    ran: Number(ran?.[1] ?? Number.NaN),
    total: Number(ran?.[2] ?? Number.NaN),
    passed: Number(counted?.[1] ?? (ran ? 0 : Number.NaN)),
    failed: Number(counted?.[2] ?? Number.NaN),
    failures: [...failures, ...summary],
  };
}

export function etcdBinary(): string {
  return execFileSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' }).trim();
}

function goModCache(): string {
  if (process.env.GOMODCACHE) return process.env.GOMODCACHE;
  try {
    return execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  } catch {
    return join(homedir(), 'go', 'pkg', 'mod');
  }
}
