/**
 * The reference conformance suite's specs capstan passes now (tools/conformance/expected-pass.txt)
 * still pass: each is one test here, run by the reference `e2e.test` in its own process against
 * a fresh capstan, two at a time. capstan runs as a cluster: the reference controller manager and
 * scheduler and simulated nodes (kwok) with it, as many specs wait on them. `make conformance`
 * runs the whole API-only list and names new passes; this is the part CI runs
 * (tools/run-tests.sh runs it alone, after the other suites). The suite's and the controllers'
 * binaries are built from their Go modules when the cache lacks them (about 15 minutes each on
 * 2 cores), so the first run is slow.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLUSTER_NODES, CLUSTER_SERVER_FLAGS, type SpecResult } from '../../tools/conformance/e2e-suite';
import { countOf, resultTable, runSpecs } from '../../tools/conformance/run-specs';
import { EXPECTED_PASS_LIST, readSpecList } from '../../tools/conformance/spec-lists';
import { buildReferenceControllers, startCluster, type Cluster } from '../cluster/reference-controllers';

const BUILD_TIMEOUT_MS = 40 * 60_000;
// Above five minutes: a few specs wait for the ResourceQuota controller's full resync, which
// comes every five minutes (as the reference's --resource-quota-sync-period), so when one lands
// in a spec's run depends on the clock.
const SPEC_TIMEOUT_MS = 330_000;
const RUN_TIMEOUT_MS = 40 * 60_000;
const RESULTS_DIR = join(__dirname, '..', '..', 'test-results');

const expectedPass = readSpecList(EXPECTED_PASS_LIST);
const results = new Map<string, SpecResult>();
let cluster: Cluster | undefined;

beforeAll(() => {
  execFileSync(join(__dirname, '..', '..', 'tools', 'conformance', 'build-e2e-test.sh'), {
    stdio: 'inherit',
    timeout: BUILD_TIMEOUT_MS,
  });
}, BUILD_TIMEOUT_MS);

beforeAll(() => buildReferenceControllers(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);

beforeAll(async () => {
  cluster = await startCluster({ nodes: CLUSTER_NODES, flags: CLUSTER_SERVER_FLAGS });
  for (const result of await runSpecs(expectedPass, {
    kubeconfig: cluster.server.kubeconfig,
    parallel: 2,
    timeoutMs: SPEC_TIMEOUT_MS,
  })) {
    results.set(result.spec, result);
  }
}, RUN_TIMEOUT_MS);

afterAll(async () => {
  // The controllers' logs, for a spec that failed because one of them did, and each spec's time.
  mkdirSync(RESULTS_DIR, { recursive: true });
  const ran = [...results.values()];
  writeFileSync(join(RESULTS_DIR, 'conformance-ci.txt'), `${resultTable(ran)}\n${countOf(ran)}\n`);
  cluster?.writeLogs(RESULTS_DIR, 'conformance-');
  await cluster?.stop();
});

test.each(expectedPass)('%s', (spec) => {
  const result = results.get(spec);
  expect({ spec, outcome: result?.outcome, firstError: result?.firstError }).toEqual({
    spec,
    outcome: 'passed',
    firstError: '',
  });
});
