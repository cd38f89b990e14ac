#!/usr/bin/env bash
# Runs a Go generator (a main.go beside its gen.sh) inside a scratch module that requires
# k8s.io/kubernetes at the pinned release, with every staging module replaced by its published
# release (../shared/notes/reference-server.md), and writes what it prints to OUT. About a minute
# with warm module caches; nothing of the reference is committed but the names and facts printed.
#   tools/reference/run-generator.sh MAIN_GO OUT SCRATCH_NAME
set -euo pipefail
main_go=$(readlink -f "$1")
out=$2
VERSION=${KUBE_VERSION:-1.34.4}
here=$(cd "$(dirname "$0")" && pwd)
scratch=${KUBE_SCRATCH:-$HOME/.cache/$3}
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$scratch/cmd"
cd "$scratch"
. "$here/scratch-module.sh"
cp "$main_go" cmd/main.go
go mod tidy >/dev/null 2>&1
KUBE_VERSION=$VERSION go run ./cmd > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out" >&2
