#!/usr/bin/env bash
# Builds the reference kube-controller-manager and kube-scheduler (k8s.io/kubernetes at the
# pinned release), the suite's test-image binaries agnhost (its webhook and conversion servers)
# and the sample API server (k8s.io/sample-apiserver), which test/cluster/process-runtime.ts runs
# as pods' processes, and the node simulator kwok (sigs.k8s.io/kwok) from their Go modules into a
# cache outside the tree, for running them against capstan as ordinary clients
# (test/cluster/controllers.test.ts). The controllers get a scratch module of their own, so this
# build never rewrites the one tools/reference/build-kube-apiserver.sh keeps. What is already
# built is skipped. About 15 minutes on 2 cores with a warm module cache.
#   tools/reference/build-controllers.sh   # -> ~/.cache/kube-ref/bin/{kube-controller-manager,kube-scheduler,agnhost,agnhost-files,sample-apiserver,kwok}
#   tools/reference/build-controllers.sh kwok   # kwok, its stages and CRDs alone (a minute or two)
set -euo pipefail
VERSION=${KUBE_VERSION:-1.34.4}
KWOK_VERSION=${KWOK_VERSION:-0.8.0}
CACHE=${KUBE_REF_CACHE:-$HOME/.cache/kube-ref}
BIN="$CACHE/bin"
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$BIN" "$CACHE/controllers"
# Test workers that need it at once build it one at a time: the others wait here, then find it built.
exec 9>"$CACHE/.build-controllers.lock"
flock 9
here=$(cd "$(dirname "$0")" && pwd)

only=${1:-all}

if [ "$only" = all ] && { [ ! -x "$BIN/kube-controller-manager" ] || [ ! -x "$BIN/kube-scheduler" ] || [ ! -x "$BIN/agnhost" ]; }; then
  cd "$CACHE/controllers"
  . "$here/scratch-module.sh"
  require_packages k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler \
    k8s.io/kubernetes/test/images/agnhost
  # Both version packages, as the reference's own build sets them: client-go's names the
  # release in every request's User-Agent (kube-controller-manager/v1.34.4 ...).
  LDFLAGS=$(version_ldflags k8s.io/component-base/version k8s.io/client-go/pkg/version)
  for command in kube-controller-manager kube-scheduler; do
    [ -x "$BIN/$command" ] || nice go build -ldflags "$LDFLAGS" -o "$BIN/$command" "k8s.io/kubernetes/cmd/$command"
  done
  [ -x "$BIN/agnhost" ] || nice go build -o "$BIN/agnhost" k8s.io/kubernetes/test/images/agnhost
fi

# The files agnhost's image adds to its working directory that its commands open by relative
# name (porter's TLS certificate and key): process-runtime.ts copies them into each agnhost pod's.
if [ "$only" = all ] && [ ! -s "$BIN/agnhost-files/localhost.key" ]; then
  porter=$(cd "$CACHE/controllers" && go mod download -json "k8s.io/kubernetes@v$VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')/test/images/agnhost/porter
  install -m 0644 -D -t "$BIN/agnhost-files" "$porter/localhost.crt" "$porter/localhost.key"
fi

# The sample API server's module, like kwok's, has no replace directives: it installs straight from the release.
[ "$only" != all ] || [ -x "$BIN/sample-apiserver" ] || GOBIN="$BIN" nice go install "k8s.io/sample-apiserver@v0.${VERSION#1.}"
# kwok's go.mod has no replace directives, so it installs straight from its module.
[ -x "$BIN/kwok" ] || GOBIN="$BIN" nice go install "sigs.k8s.io/kwok/cmd/kwok@v$KWOK_VERSION"
STAGES="$CACHE/kwok-stages.yaml"
[ -s "$STAGES" ] || KWOK_VERSION="$KWOK_VERSION" sh "$here/kwok-stages.sh" "$STAGES"
CRDS="$CACHE/kwok-crds.yaml"
[ -s "$CRDS" ] || KWOK_VERSION="$KWOK_VERSION" sh "$here/kwok-crds.sh" "$CRDS"
echo "$BIN/kube-controller-manager $BIN/kube-scheduler $BIN/agnhost $BIN/sample-apiserver $BIN/kwok $STAGES $CRDS" >&2
