/**
 * `make conformance`: starts capstan (embedded SQLite, a fresh data dir) as a cluster, with the
 * reference controller manager, scheduler and simulated nodes (test/cluster/reference-controllers.ts,
 * built by tools/reference/build-controllers.sh), runs the reference
 * suite's API-only specs (api-only.txt: sig-api-machinery, sig-auth, and the API ones of
 * sig-network and sig-cli) against it one process per spec,
 * prints the table, writes the full results to test-results/conformance.{txt,json} (and the
 * reference processes' logs to test-results/conformance-<name>.log), and fails
 * when a spec of expected-pass.txt does not pass. Specs that pass but are not listed are named,
 * to be added to the list.
 *   node dist/tools/conformance/conformance.js [--parallel 2] [--timeout 330] [--focus REGEX] [--specs FILE]
 * `--focus` keeps the listed specs whose text matches (a JavaScript regular expression);
 * `--specs` runs another list (say, the failures of a run) instead of api-only.txt.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster } from '../../test/cluster/reference-controllers';
import { countOf, resultTable, runSpecs } from './run-specs';
import { CLUSTER_NODES, CLUSTER_SERVER_FLAGS } from './e2e-suite';
import { API_ONLY_LIST, EXPECTED_PASS_LIST, judge, readSpecList } from './spec-lists';

const RESULTS_DIR = join(process.cwd(), 'test-results');

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      parallel: { type: 'string', default: '2' },
      timeout: { type: 'string', default: '330' },
      focus: { type: 'string' },
      specs: { type: 'string', default: API_ONLY_LIST },
    },
  });
  const focus = values.focus === undefined ? undefined : new RegExp(values.focus);
  const specs = readSpecList(values.specs).filter((spec) => focus === undefined || focus.test(spec));
  const expectedPass = readSpecList(EXPECTED_PASS_LIST);

  const cluster = await startCluster({ nodes: CLUSTER_NODES, flags: CLUSTER_SERVER_FLAGS });
  // Interrupted, the cluster goes with the run: no server, controller or pod process left behind
  // (a spec's suite process, its server gone, ends on its own).
  const interrupted = () => void cluster.stop().finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const server = cluster.server;
  console.log(
    `capstan at ${server.url} with the reference controllers and ${CLUSTER_NODES} nodes; ${specs.length} specs, ${values.parallel} at a time`,
  );
  let results;
  try {
    results = await runSpecs(specs, {
      kubeconfig: server.kubeconfig,
      parallel: Number(values.parallel),
      timeoutMs: Number(values.timeout) * 1000,
      onResult: (result, done, total) =>
        console.log(
          `[${done}/${total}] ${result.outcome} ${result.seconds}s ${result.spec}${result.firstError ? `\n    ${result.firstError}` : ''}`,
        ),
    });
  } finally {
    mkdirSync(RESULTS_DIR, { recursive: true });
    cluster.writeLogs(RESULTS_DIR, 'conformance-');
    await cluster.stop();
  }

  const { regressions, newPasses } = judge(results, expectedPass);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'conformance.txt'), `${resultTable(results)}\n${countOf(results)}\n`);
  writeFileSync(join(RESULTS_DIR, 'conformance.json'), JSON.stringify(results, null, 1));
  console.log(`\n${resultTable(results, 120)}\n`);
  for (const result of newPasses) console.log(`passes, not in expected-pass.txt: ${result.spec}`);
  for (const result of regressions)
    console.log(`REGRESSION (in expected-pass.txt): ${result.spec}: ${result.firstError}`);
  console.log(
    `${countOf(results)}; ${regressions.length} regressions; full results in ${join(RESULTS_DIR, 'conformance.txt')}`,
  );
  return regressions.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
