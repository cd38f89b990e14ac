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
# Test workers that need it at once build it one at a time: the others wait here, then find it built.
exec 9>"$CACHE/.build-kube-apiserver.lock"
flock 9
# Built already for this release: nothing to do.
if [ -x "$CACHE/bin/kube-apiserver" ] && "$CACHE/bin/kube-apiserver" --version 2>/dev/null | grep -qx "Kubernetes v$VERSION"; then
  echo "$CACHE/bin/kube-apiserver" >&2
  exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
cd "$CACHE"
. "$here/scratch-module.sh"
require_packages k8s.io/kubernetes/cmd/kube-apiserver
LDFLAGS=$(version_ldflags k8s.io/component-base/version)
go build -ldflags "$LDFLAGS" -o bin/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
echo "$CACHE/bin/kube-apiserver" >&2
