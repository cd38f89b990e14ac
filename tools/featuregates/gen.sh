#!/usr/bin/env bash
# Regenerates server/config/feature-gates.ts from kube-apiserver's own feature-gate registry.
# k8s.io/kubernetes cannot be required as is (its go.mod points the k8s.io/* staging modules at
# local folders), so a scratch module outside the tree requires it with every staging module
# replaced by its published release (../shared/notes/reference-server.md). About a minute with
# warm module caches; nothing of the reference is committed but the names and facts printed.
set -euo pipefail
VERSION=${KUBE_VERSION:-1.34.4}
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../server/config/feature-gates.ts"
scratch=${KUBE_SCRATCH:-$HOME/.cache/capstan-featuregates}
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$scratch/cmd"
cd "$scratch"
. "$here/../reference/scratch-module.sh"
cp "$here/main.go" cmd/main.go
go mod tidy >/dev/null 2>&1
KUBE_VERSION=$VERSION go run ./cmd > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out" >&2
