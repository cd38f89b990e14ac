#!/usr/bin/env bash
# Regenerates server/config/feature-gates.ts from kube-apiserver's own feature-gate registry.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../reference/run-generator.sh" "$here/main.go" "$(readlink -f "$here/../../server/config")/feature-gates.ts" capstan-featuregates
