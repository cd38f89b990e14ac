/**
 * controller-runtime's own suites, unchanged, against capstan as envtest's API server: the
 * v0.22.5 test binaries of pkg/envtest, pkg/client and pkg/cache, built from the Go module by
 * tools/outside-suites/build-controller-runtime.sh (cached outside the tree; minutes the first
 * time), each run from its package directory in the module cache (its testdata paths are
 * relative) with TEST_ASSET_KUBE_APISERVER=bin/kube-apiserver and Debian's etcd. Every spec that
 * passes against the reference kube-apiserver 1.34.4 must pass here: the counts below are the
 * reference's (/work/shared/notes/outside-suites.md). tools/run-tests.sh runs this file alone,
 * after the other suites, as some specs give the server one second.
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt } from '../helpers/capstan-process';

const ROOT = join(__dirname, '..', '..');
const BUILD_SCRIPT = join(ROOT, 'tools', 'outside-suites', 'build-controller-runtime.sh');
const KUBE_APISERVER = join(ROOT, 'bin', 'kube-apiserver');
const VERSION = 'v0.22.5';
const BINARIES = join(
  process.env.OUTSIDE_SUITES_CACHE ?? join(process.env.HOME ?? '/root', '.cache', 'outside-suites'),
  `controller-runtime-${VERSION}`,
);
/** A cold build downloads the module's dependencies and compiles three binaries. */
const BUILD_TIMEOUT_MS = 30 * 60_000;
/** pkg/cache takes about 2.5 minutes here. */
const SUITE_TIMEOUT_MS = 15 * 60_000;

/** Specs the reference passes, which must all pass here (pending ones are the suites' own). */
const SUITES = [
  { name: 'envtest', passed: 28, pending: 0 },
  { name: 'client', passed: 279, pending: 22 },
  { name: 'cache', passed: 276, pending: 0 },
] as const;

let moduleDir: string;
let etcd: string;

beforeAll(() => {
  ensureBuilt();
  const began = Date.now();
  const printed = execFileSync(BUILD_SCRIPT, {
    encoding: 'utf8',
    timeout: BUILD_TIMEOUT_MS,
    env: { ...process.env, CONTROLLER_RUNTIME_VERSION: VERSION },
  });
  moduleDir = printed.trim().split('\n').at(-1)!;
  etcd = execFileSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' }).trim();
  process.stdout.write(
    `controller-runtime ${VERSION} test binaries ready in ${Math.round((Date.now() - began) / 1000)} s (${moduleDir})\n`,
  );
}, BUILD_TIMEOUT_MS);

/** What ginkgo's summary says about a run. */
interface GinkgoSummary {
  readonly ran: number;
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly pending: number;
  readonly skipped: number;
  /** The names under "Summarizing N Failures". */
  readonly failures: readonly string[];
}

function parseGinkgoSummary(output: string): GinkgoSummary | undefined {
  const ran = /Ran (\d+) of (\d+) Specs? in/.exec(output);
  const counts = /(\d+) Passed \| (\d+) Failed \| (\d+) Pending \| (\d+) Skipped/.exec(output);
  if (!ran || !counts) return undefined;
  const failures = [...output.matchAll(/^\s*\[(?:FAIL|PANICKED|TIMEDOUT|INTERRUPTED)\] (.+)$/gm)].map((match) =>
    match[1].trim(),
  );
  const [passed, failed, pending, skipped] = counts.slice(1).map(Number);
  return { ran: Number(ran[1]), total: Number(ran[2]), passed, failed, pending, skipped, failures };
}

/** Runs one suite's binary from its package directory; resolves with its output and exit code. */
function runSuite(name: string): Promise<{ output: string; code: number | null; seconds: number }> {
  const began = Date.now();
  return new Promise((resolve) => {
    const child = spawn(join(BINARIES, `${name}.test`), ['-ginkgo.no-color'], {
      cwd: join(moduleDir, 'pkg', name),
      env: { ...process.env, TEST_ASSET_KUBE_APISERVER: KUBE_APISERVER, TEST_ASSET_ETCD: etcd },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), SUITE_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ output: `${output}\n${error.message}`, code: null, seconds: Math.round((Date.now() - began) / 1000) });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ output, code, seconds: Math.round((Date.now() - began) / 1000) });
    });
  });
}

test.each(SUITES)(
  'pkg/$name: every spec the reference passes, $passed of them, passes',
  async ({ name, passed, pending }) => {
    const { output, code, seconds } = await runSuite(name);
    const summary = parseGinkgoSummary(output);
    process.stdout.write(
      `pkg/${name}: ${summary ? `${summary.passed} passed, ${summary.failed} failed` : 'no summary'} in ${seconds} s\n`,
    );
    if (summary === undefined)
      throw new Error(
        `pkg/${name} ended (exit ${code}) without ginkgo's summary; its output ends:\n${output.slice(-4000)}`,
      );
    // The failing specs' names in the message, so a red run says what to look at.
    expect({ failed: summary.failed, failures: summary.failures }).toEqual({ failed: 0, failures: [] });
    expect({ ran: summary.ran, passed: summary.passed, pending: summary.pending, exit: code }).toEqual({
      ran: passed,
      passed,
      pending,
      exit: 0,
    });
  },
  SUITE_TIMEOUT_MS + 60_000,
);

test('the summary parser reads counts and failing spec names', () => {
  const output = [
    'Summarizing 1 Failure:',
    '  [FAIL] Test Webhook [It] should reject create request for webhook that rejects all requests',
    '  /root/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.22.5/pkg/envtest/webhook_test.go:92',
    '',
    'Ran 28 of 28 Specs in 19.388 seconds',
    'FAIL! -- 27 Passed | 1 Failed | 0 Pending | 0 Skipped',
  ].join('\n');
  expect(parseGinkgoSummary(output)).toEqual({
    ran: 28,
    total: 28,
    passed: 27,
    failed: 1,
    pending: 0,
    skipped: 0,
    failures: ['Test Webhook [It] should reject create request for webhook that rejects all requests'],
  });
});
