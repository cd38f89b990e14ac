#!/usr/bin/env bash
# Builds the reference kube-apiserver (k8s.io/kubernetes at the pinned release) from its Go
# module into a cache outside the tree, for asking it what a 1.34 server answers
# (test/corpus/reference.sh, ../shared/notes/reference-server.md). k8s.io/kubernetes cannot be
# required as is: its go.mod points the k8s.io/* staging modules at local folders, so a scratch
# module replaces each with its published release. About 10 minutes on 2 cores with cold caches.
#   tools/reference/build-kube-apiserver.sh            # -> ~/.cache/kube-ref/bin/kube-apiserver
set -euo pipefail
VERSION=${KUBE_VERSION:-1.34.4}
CACHE=${KUBE_REF_CACHE:-$HOME/.cache/kube-ref}
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$CACHE/bin"
cd "$CACHE"
[ -f go.mod ] || go mod init scratch >/dev/null 2>&1
go mod edit -require="k8s.io/kubernetes@v$VERSION"
dir=$(go mod download -json "k8s.io/kubernetes@v$VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
for module in $(grep -oE 'k8s.io/[a-z0-9-]+ => ./staging' "$dir/go.mod" | awk '{print $1}'); do
  go mod edit -replace="$module=$module@v0.${VERSION#1.}"
done
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
go mod tidy >/dev/null
MINOR=$(echo "$VERSION" | cut -d. -f2)
LDFLAGS="-X k8s.io/component-base/version.gitVersion=v$VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR"
go build -ldflags "$LDFLAGS" -o bin/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
echo "$CACHE/bin/kube-apiserver" >&2
