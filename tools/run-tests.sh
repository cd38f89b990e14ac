#!/usr/bin/env bash
# Runs every test once and ends with the line `N passed, N failed[, N skipped]`, computed from
# jest's JSON report of this run (a suite that fails to load counts as one failure). The line is
# also kept in test-results/summary.txt so .ci/run can repeat it last.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
rm -f test-results/jest.json test-results/summary.txt

npm run --silent build || { echo "0 passed, 1 failed" | tee test-results/summary.txt; exit 1; }
# kubectl explain's field descriptions (never committed; taken from the API's Go modules).
descriptions=server/schema/generated/descriptions.json
[ -f "$descriptions" ] || npx node dist/tools/descriptions/fetch-descriptions.js "$descriptions" || true
npx jest --json --outputFile=test-results/jest.json "$@"
status=$?

npx node -e '
const fs = require("fs");
let r;
try { r = JSON.parse(fs.readFileSync("test-results/jest.json", "utf8")); }
catch { console.log("0 passed, 1 failed"); process.exit(0); }
const failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
const skipped = r.numPendingTests + r.numTodoTests;
console.log(`${r.numPassedTests} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
' | tee test-results/summary.txt
exit $status
