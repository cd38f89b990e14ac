#!/usr/bin/env bash
# Records test/server/validation/internal-json.reference.json: what the pinned release's
# json.MarshalIndent and diff.Diff write for the internal forms of the v1 objects in
# test/server/validation/internal-json.cases.json, which internal-json.test.ts replays.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tests=$(readlink -f "$here/../../test/server/validation")
CASES="$tests/internal-json.cases.json" "$here/../reference/run-generator.sh" "$here/marshal/main.go" \
  "$tests/internal-json.reference.json" capstan-internaljson-marshal
