#!/usr/bin/env bash
# Regenerates server/config/reference-flags.ts from kube-apiserver's own command: every flag of
# the pinned release with its section, type, default and whether it is hidden or deprecated.
# A scratch module outside the tree requires k8s.io/kubernetes with its staging modules replaced
# by their releases (../shared/notes/reference-server.md); about a minute with warm caches.
set -euo pipefail
VERSION=${KUBE_VERSION:-1.34.4}
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../server/config/reference-flags.ts"
scratch=${KUBE_SCRATCH:-$HOME/.cache/capstan-apiserverflags}
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$scratch/cmd"
cd "$scratch"
. "$here/../reference/scratch-module.sh"
cp "$here/main.go" cmd/main.go
go mod tidy >/dev/null 2>&1
KUBE_VERSION=$VERSION go run ./cmd > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out" >&2
