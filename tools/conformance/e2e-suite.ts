/**
 * The reference conformance suite (`e2e.test` of k8s.io/kubernetes, built by build-e2e-test.sh)
 * as a program capstan is measured by: listing its specs, and running one spec per process
 * against a kubeconfig, its outcome read from the suite's own JSON report (ginkgo v2).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBECTL } from '../../test/helpers/server';

export const E2E_TEST = join(process.env.KUBE_REF_CACHE ?? join(homedir(), '.cache', 'kube-ref'), 'bin', 'e2e.test');

/** How many simulated nodes the cluster the suite runs against has (test/cluster/reference-controllers.ts startCluster). */
export const CLUSTER_NODES = 2;

/**
 * The server flags of that cluster beyond kubeadm's: the off-by-default APIs whose
 * `[Feature:OffByDefault]` specs api-only.txt runs, switched on as those specs require (a
 * default 1.34 server lacks them, so their specs would only find 404s). MutatingAdmissionPolicy's
 * API-operation specs are written once for v1alpha1 and once for v1beta1 under the same text, so
 * a focus on that text runs both: both versions are on.
 */
export const CLUSTER_SERVER_FLAGS = [
  '--runtime-config=admissionregistration.k8s.io/v1beta1=true,admissionregistration.k8s.io/v1alpha1=true',
  '--feature-gates=MutatingAdmissionPolicy=true',
];

/**
 * What the suite needs against capstan with the reference controllers and simulated nodes
 * (../shared/notes/reference-server.md): the skeleton provider (no cloud), no wait for system
 * pods (there are none: kwok runs no containers), the nodes there are; the kubectl the tests
 * use, for the specs that run it (`kubectl explain` of custom resources).
 */
const CLUSTER_FLAGS = [
  '--provider=skeleton',
  '--allowed-not-ready-nodes=-1',
  '--minStartupPods=-1',
  `--num-nodes=${CLUSTER_NODES}`,
  `--kubectl-path=${KUBECTL}`,
  '--ginkgo.no-color',
];

/**
 * Specs that race the wall clock in their own code, against the reference too: they compare a
 * Table fetched by GET with the same rows streamed later, and a row's Age (whole seconds since
 * creation) moves on when a second boundary falls between the two. Each gets a second attempt,
 * as ginkgo's `--flake-attempts` gives one; a failure twice in a row is still a failure.
 */
const RACES_THE_CLOCK = new Set([
  '[sig-api-machinery] API Streaming (aka. WatchList) [FeatureGate:WatchList] [Beta] [Serial] server supports sending resources in Table format',
]);

/** `skipped`: the spec skipped itself at run time (a feature it looks for is missing). */
export type SpecOutcome = 'passed' | 'failed' | 'timedout' | 'skipped';

export interface SpecResult {
  /** The spec's full text, as ginkgo joins its container and leaf texts. */
  readonly spec: string;
  readonly outcome: SpecOutcome;
  /** The first line of the failure message; empty for a pass. */
  readonly firstError: string;
  readonly seconds: number;
}

/** The parts of ginkgo's JSON report (types.Report) read here. */
interface GinkgoSpecReport {
  readonly ContainerHierarchyTexts: string[] | null;
  readonly LeafNodeText: string;
  readonly LeafNodeType: string;
  readonly State: string;
  readonly Failure?: { readonly Message: string };
}
interface GinkgoReport {
  readonly SpecReports: GinkgoSpecReport[] | null;
}

function fullText(report: GinkgoSpecReport): string {
  return [...(report.ContainerHierarchyTexts ?? []), report.LeafNodeText].filter((text) => text !== '').join(' ');
}

/**
 * A focus that selects exactly this spec: ginkgo matches the focus against the suite's
 * description, a space, and the spec's full text (internal/focus.go).
 */
export function focusOn(spec: string): string {
  return ` ${spec.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')}$`;
}

function runSuite(args: readonly string[], killAfterMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(E2E_TEST, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Runs the suite with `args` plus a JSON report, and hands back that report's specs (none if it wrote none). */
async function reportOf(
  args: readonly string[],
  killAfterMs: number,
): Promise<{ specs: GinkgoSpecReport[]; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-'));
  try {
    const reportFile = join(dir, 'report.json');
    const { output } = await runSuite(
      [...args, `--ginkgo.json-report=${reportFile}`, `--report-dir=${dir}`],
      killAfterMs,
    );
    let reports: GinkgoReport[] = [];
    try {
      reports = JSON.parse(readFileSync(reportFile, 'utf8')) as GinkgoReport[];
    } catch {
      // No report: the process was killed or never started the suite; the caller says so.
    }
    return { specs: reports.flatMap((report) => report.SpecReports ?? []), output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The full texts of every spec the suite holds whose text matches `focus` (a dry run: nothing runs). */
export async function listSpecs(focus: string): Promise<string[]> {
  const { specs, output } = await reportOf(['--ginkgo.dry-run', `--ginkgo.focus=${focus}`, ...CLUSTER_FLAGS], 120_000);
  if (specs.length === 0) throw new Error(`e2e.test listed no specs:\n${output}`);
  return specs
    .filter((spec) => spec.LeafNodeType === 'It' && spec.State !== 'skipped' && spec.State !== 'pending')
    .map(fullText);
}

/**
 * The message's first line, with the next ones joined on while it is too short to say anything
 * (gomega starts with a bare "Expected").
 */
function firstLine(text: string): string {
  let line = '';
  for (const part of text.split('\n').map((each) => each.trim())) {
    if (part === '') continue;
    line = line === '' ? part : `${line} ${part}`;
    if (line.length >= 60) break;
  }
  return line;
}

/**
 * Runs one spec in its own suite process against `kubeconfig`. The suite stops itself after
 * `timeoutMs` (its report then says why); the process is killed if it outlives that by a minute.
 */
export async function runSpec(spec: string, kubeconfig: string, timeoutMs: number): Promise<SpecResult> {
  const started = performance.now();
  const args = [
    `--kubeconfig=${kubeconfig}`,
    ...CLUSTER_FLAGS,
    `--ginkgo.focus=${focusOn(spec)}`,
    `--ginkgo.timeout=${Math.round(timeoutMs / 1000)}s`,
    ...(RACES_THE_CLOCK.has(spec) ? ['--ginkgo.flake-attempts=2'] : []),
  ];
  const { specs, output } = await reportOf(args, timeoutMs + 60_000);
  const seconds = Math.round((performance.now() - started) / 1000);
  const own = specs.find((report) => report.LeafNodeType === 'It' && fullText(report) === spec);
  // A failed suite set-up skips the spec: its own report then says nothing, the set-up's does.
  const failedSetUp = specs.find(
    (report) => report.LeafNodeType !== 'It' && report.State !== 'passed' && report.Failure,
  );
  if (own === undefined) {
    return {
      spec,
      outcome: 'timedout',
      firstError: `no report for the spec (killed after its timeout?): ${firstLine(output.split('\n').slice(-3).join('\n'))}`,
      seconds,
    };
  }
  if (own.State === 'passed') return { spec, outcome: 'passed', firstError: '', seconds };
  // A spec that skips itself (a feature it finds missing) says why in its failure message.
  if (own.State === 'skipped' && failedSetUp === undefined)
    return { spec, outcome: 'skipped', firstError: firstLine(own.Failure?.Message ?? 'skipped'), seconds };
  const failure = own.Failure ?? failedSetUp?.Failure;
  const outcome: SpecOutcome = own.State === 'timedout' || own.State === 'interrupted' ? 'timedout' : 'failed';
  return { spec, outcome, firstError: firstLine(failure?.Message ?? own.State), seconds };
}
