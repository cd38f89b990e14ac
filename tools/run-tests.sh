#!/usr/bin/env bash
# Runs every test once and ends with the line `N passed, N failed[, N skipped]`, computed from
# jest's JSON reports of this run (a suite that fails to load counts as one failure). The line is
# also kept in test-results/summary.txt so .ci/run can repeat it last.
#
# The first-run tests (test/first-run: a fresh clone's `make run`, timed as a user meets it) run
# alone after the rest, on a machine the other suites no longer load; so do controller-runtime's
# suites through envtest (test/outside), some of whose specs give the server one second, and the
# reference conformance suite's expected passes (test/conformance), whose spec processes have
# timeouts.
# A full run first runs `npm run lint` (import cycles and layers, .dependency-cruiser.cjs, and
# prettier's check of the formatting); its
# failure counts as one failure in the summary line.
# Arguments go to one jest run instead (`make test ARGS=...` is not needed: `./tools/run-tests.sh test/client`).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
rm -f test-results/*.json test-results/summary.txt

npm run --silent build || { echo "0 passed, 1 failed" | tee test-results/summary.txt; exit 1; }
# kubectl explain's field descriptions (never committed; taken from the API's Go modules), taken
# again when the pinned modules or the tool that reads them changed since, as the Makefile does.
descriptions=server/schema/generated/descriptions.json
if [ ! -f "$descriptions" ] || [ -n "$(find tools/schemagen/go.mod tools/descriptions -newer "$descriptions" -name '*.ts' -o -newer "$descriptions" -name go.mod)" ]; then
  npx node dist/tools/descriptions/fetch-descriptions.js "$descriptions" || true
fi

status=0
lint_failures=0
if [ $# -gt 0 ]; then
  reports=(test-results/jest.json)
  npx jest --json --outputFile=test-results/jest.json "$@" || status=$?
else
  reports=(test-results/jest.json test-results/jest-first-run.json test-results/jest-outside.json test-results/jest-conformance.json)
  npm run --silent lint || { status=1; lint_failures=1; }
  npx jest --json --outputFile=test-results/jest.json --testPathIgnorePatterns '/test/(first-run|outside|conformance)/' || status=$?
  npx jest --json --outputFile=test-results/jest-first-run.json test/first-run || status=$?
  npx jest --json --outputFile=test-results/jest-outside.json test/outside || status=$?
  # The suite's and the controllers' binaries are built (from the Go module proxy) before the
  # suite runs in a network namespace of its own, which reaches no other host: its pods get
  # addresses the reference proxies to (tools/conformance/pod-network.sh).
  { ./tools/conformance/build-e2e-test.sh && ./tools/reference/build-controllers.sh; } || status=$?
  ./tools/conformance/pod-network.sh npx jest --json --outputFile=test-results/jest-conformance.json test/conformance || status=$?
fi

# A report that is missing or unreadable (jest itself failed) counts as one failure.
LINT_FAILURES=$lint_failures npx node -e '
const fs = require("fs");
let passed = 0, failed = Number(process.env.LINT_FAILURES), skipped = 0;
for (const file of process.argv.slice(1)) {
  let r;
  try { r = JSON.parse(fs.readFileSync(file, "utf8")); }
  catch { failed += 1; continue; }
  passed += r.numPassedTests;
  failed += r.numFailedTests + r.numRuntimeErrorTestSuites;
  skipped += r.numPendingTests + r.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "${reports[@]}" | tee test-results/summary.txt
exit $status
