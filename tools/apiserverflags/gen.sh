#!/usr/bin/env bash
# Regenerates server/config/reference-flags.ts from kube-apiserver's own command: every flag of
# the pinned release with its section, type, default and whether it is hidden or deprecated.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../reference/run-generator.sh" "$here/main.go" "$(readlink -f "$here/../../server/config")/reference-flags.ts" capstan-apiserverflags
