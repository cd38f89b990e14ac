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
[ -f go.mod ] || go mod init scratch >/dev/null 2>&1
go mod edit -require="k8s.io/kubernetes@v$VERSION"
dir=$(go mod download -json "k8s.io/kubernetes@v$VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
for module in $(grep -oE 'k8s.io/[a-z0-9-]+ => ./staging' "$dir/go.mod" | awk '{print $1}'); do
  go mod edit -replace="$module=$module@v0.${VERSION#1.}"
done
cp "$here/main.go" cmd/main.go
go mod tidy >/dev/null 2>&1
KUBE_VERSION=$VERSION go run ./cmd > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out" >&2
