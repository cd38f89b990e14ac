#!/usr/bin/env bash
# Builds controller-runtime's own test binaries (pkg/envtest, pkg/client, pkg/cache) from its Go
# module into a cache outside the tree, unchanged, so they can run through envtest against
# bin/kube-apiserver (test/outside/controller-runtime.test.ts). A scratch module requires the
# pinned release; `go get -t` adds its test dependencies. What is already built is skipped.
# About 2 minutes a binary with a warm Go cache.
#   tools/outside-suites/build-controller-runtime.sh   # -> ~/.cache/outside-suites/controller-runtime-v0.22.5/{envtest,client,cache}.test
# Its last line is the module's directory in the module cache.
set -euo pipefail
VERSION=${CONTROLLER_RUNTIME_VERSION:-v0.22.5}
CACHE=${OUTSIDE_SUITES_CACHE:-$HOME/.cache/outside-suites}/controller-runtime-$VERSION
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$CACHE"
cd "$CACHE"
[ -f go.mod ] || go mod init scratch >/dev/null 2>&1
for package in envtest client cache; do
  [ -x "$package.test" ] && continue
  go get -t "sigs.k8s.io/controller-runtime/pkg/$package@$VERSION" >/dev/null 2>&1 || go get -t "sigs.k8s.io/controller-runtime/pkg/$package@$VERSION"
  go test -c -o "$package.test" "sigs.k8s.io/controller-runtime/pkg/$package"
done
# The binaries read their testdata relative to their package directory: the module's source
# must be in the module cache even when the binaries were built before it was cleaned.
go mod download "sigs.k8s.io/controller-runtime@$VERSION"
echo "$(go env GOMODCACHE)/sigs.k8s.io/controller-runtime@$VERSION"
