#!/usr/bin/env bash
# Regenerates server/validation/internal-json-fields.ts from the pinned release's internal API
# types (the structs apimachinery's diff.Diff marshals in the "may not change" messages).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(readlink -f "$here/../../server/validation")/internal-json-fields.ts
"$here/../reference/run-generator.sh" "$here/fields/main.go" "$out" capstan-internaljson
(cd "$here/../.." && npx prettier --write "$out" >/dev/null)
