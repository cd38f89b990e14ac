#!/usr/bin/env bash
# Builds the reference kube-controller-manager and kube-scheduler (k8s.io/kubernetes at the
# pinned release) and the node simulator kwok (sigs.k8s.io/kwok) from their Go modules into a
# cache outside the tree, for running them against capstan as ordinary clients
# (test/cluster/controllers.test.ts). The controllers get a scratch module of their own, so this
# build never rewrites the one tools/reference/build-kube-apiserver.sh keeps. What is already
# built is skipped. About 15 minutes on 2 cores with a warm module cache.
#   tools/reference/build-controllers.sh   # -> ~/.cache/kube-ref/bin/{kube-controller-manager,kube-scheduler,kwok}
set -euo pipefail
VERSION=${KUBE_VERSION:-1.34.4}
KWOK_VERSION=${KWOK_VERSION:-0.8.0}
CACHE=${KUBE_REF_CACHE:-$HOME/.cache/kube-ref}
BIN="$CACHE/bin"
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$BIN" "$CACHE/controllers"
here=$(cd "$(dirname "$0")" && pwd)

if [ ! -x "$BIN/kube-controller-manager" ] || [ ! -x "$BIN/kube-scheduler" ]; then
  cd "$CACHE/controllers"
  . "$here/scratch-module.sh"
  cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
GO
  go mod tidy >/dev/null
  MINOR=$(echo "$VERSION" | cut -d. -f2)
  LDFLAGS="-X k8s.io/component-base/version.gitVersion=v$VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR"
  for command in kube-controller-manager kube-scheduler; do
    [ -x "$BIN/$command" ] || nice go build -ldflags "$LDFLAGS" -o "$BIN/$command" "k8s.io/kubernetes/cmd/$command"
  done
fi

# kwok's go.mod has no replace directives, so it installs straight from its module.
[ -x "$BIN/kwok" ] || GOBIN="$BIN" nice go install "sigs.k8s.io/kwok/cmd/kwok@v$KWOK_VERSION"
# kwok runs no stage it is not given: the "fast" set its kwokctl clusters use (nodes Ready at
# once with lease heartbeats, pods Running at once, Job pods Succeeded, deleted pods gone), as
# the module ships them.
STAGES="$CACHE/kwok-stages.yaml"
if [ ! -s "$STAGES" ]; then
  kwok_dir=$(go mod download -json "sigs.k8s.io/kwok@v$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  for stage in "$kwok_dir"/kustomize/stage/node/fast/*.yaml "$kwok_dir"/kustomize/stage/node/heartbeat-with-lease/*.yaml "$kwok_dir"/kustomize/stage/pod/fast/*.yaml; do
    [ "$(basename "$stage")" = kustomization.yaml ] && continue
    echo '---'
    cat "$stage"
  done > "$STAGES.tmp"
  mv "$STAGES.tmp" "$STAGES"
fi
echo "$BIN/kube-controller-manager $BIN/kube-scheduler $BIN/kwok $STAGES" >&2
