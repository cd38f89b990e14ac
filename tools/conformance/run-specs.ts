/**
 * Runs a list of the reference suite's specs against one server, each in its own process, a
 * few at a time, and renders the outcome as a table (spec, result, first error line).
 */
import { runSpec, type SpecResult } from './e2e-suite';

/**
 * The least a spec marked `[Slow]` gets: the chunking spec that waits for a compaction polls for
 * twice the reference's default compaction interval (5 minutes), and the server compacts on
 * that interval too.
 */
const SLOW_SPEC_TIMEOUT_MS = 11 * 60_000;

/**
 * Specs whose webhook or conversion server, port-forward target, proxied server or Service
 * backend is a pod's process (test/cluster/process-runtime.ts): the suite serves each on a fixed
 * port (the port-forward, proxy and Service specs' pods on 80) and those processes share one
 * network, so two of these specs at once would collide; they take turns, beside the other specs.
 */
const SERVES_FROM_A_POD =
  /^(\[sig-api-machinery\] (AdmissionWebhook|CustomResourceConversionWebhook|CustomResourceFieldSelectors)|\[sig-cli\] Kubectl Port forwarding|\[sig-network\] (Proxy version v1 (A set of valid responses|should proxy through a service and a pod)|Services should (serve|be able to change)|EndpointSlice should support a Service with multiple)) /;

export interface RunOptions {
  readonly kubeconfig: string;
  /** How many spec processes at once. */
  readonly parallel: number;
  /** Per spec (at least SLOW_SPEC_TIMEOUT_MS for a `[Slow]` one). */
  readonly timeoutMs: number;
  /** Called as each spec ends, in the order they end. */
  readonly onResult?: (result: SpecResult, done: number, total: number) => void;
}

/**
 * The results in the order of `specs`. Specs marked `[Serial]` (the suite's word for "nothing
 * else may run meanwhile") run one by one after the others; specs serving from a pod run one at
 * a time among the others.
 */
export async function runSpecs(specs: readonly string[], options: RunOptions): Promise<SpecResult[]> {
  const results: SpecResult[] = new Array(specs.length);
  const indices = specs.map((_, index) => index);
  const serial = indices.filter((index) => specs[index].includes('[Serial]'));
  let done = 0;
  let podTurn: Promise<void> | undefined;
  const runAll = async (queue: number[], parallel: number) => {
    // The next spec that may start now: a spec serving from a pod waits while another runs.
    const take = () => {
      const at = queue.findIndex((index) => podTurn === undefined || !SERVES_FROM_A_POD.test(specs[index]));
      return at < 0 ? undefined : queue.splice(at, 1)[0];
    };
    const run = async (index: number) => {
      const timeoutMs = specs[index].includes('[Slow]')
        ? Math.max(options.timeoutMs, SLOW_SPEC_TIMEOUT_MS)
        : options.timeoutMs;
      results[index] = await runSpec(specs[index], options.kubeconfig, timeoutMs);
      options.onResult?.(results[index], ++done, specs.length);
    };
    const worker = async () => {
      while (queue.length > 0) {
        const index = take();
        if (index === undefined) {
          await podTurn;
          continue;
        }
        if (!SERVES_FROM_A_POD.test(specs[index])) {
          await run(index);
          continue;
        }
        podTurn = run(index);
        await podTurn;
        podTurn = undefined;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
  };
  await runAll(
    indices.filter((index) => !serial.includes(index)),
    options.parallel,
  );
  await runAll(serial, 1);
  return results;
}

/** One line per spec: result, seconds, spec text, first error line (cut to `errorWidth`). */
export function resultTable(results: readonly SpecResult[], errorWidth = Infinity): string {
  const lines = results.map((result) => {
    const error =
      result.firstError.length > errorWidth ? `${result.firstError.slice(0, errorWidth - 1)}…` : result.firstError;
    return [result.outcome.toUpperCase().padEnd(8), `${result.seconds}s`.padStart(5), result.spec, error]
      .join(' | ')
      .replace(/ \| $/, '');
  });
  return ['RESULT   |  TIME | SPEC | FIRST ERROR', ...lines].join('\n');
}

export function countOf(results: readonly SpecResult[]): string {
  const passed = results.filter((result) => result.outcome === 'passed').length;
  return `${passed} of ${results.length} specs passed`;
}
