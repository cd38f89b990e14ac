#!/usr/bin/env bash
# Builds the reference conformance suite, `e2e.test` of k8s.io/kubernetes at the pinned release,
# from its Go module into a cache outside the tree, once: the binary is kept with the version it
# was built from and rebuilt only when that changes. Its own scratch module (beside the one of
# tools/reference/build-kube-apiserver.sh, so the two builds never edit the same go.mod). The
# upstream builds it as `go test -c ./test/e2e` with the same version ldflags as its binaries.
# About 15 minutes on 2 cores with cold caches.
#   tools/conformance/build-e2e-test.sh            # -> ~/.cache/kube-ref/bin/e2e.test
set -euo pipefail
VERSION=${KUBE_VERSION:-1.34.4}
CACHE=${KUBE_REF_CACHE:-$HOME/.cache/kube-ref}
export PATH="$PATH:/usr/local/go/bin"
binary="$CACHE/bin/e2e.test"
stamp="$binary.version"
mkdir -p "$CACHE/bin" "$CACHE/e2e"
# Test workers that need it at once build it one at a time: the others wait here, then find it built.
exec 9>"$CACHE/.build-e2e-test.lock"
flock 9
if [ -x "$binary" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$VERSION" ]; then
  echo "$binary" >&2
  exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
cd "$CACHE/e2e"
. "$here/../reference/scratch-module.sh"
# The suite is a test package: its non-test imports make tidy record the module versions, and
# -mod=mod lets `go test -c` record the sums of what only its test files import.
require_packages k8s.io/kubernetes/test/e2e
LDFLAGS=$(version_ldflags k8s.io/component-base/version)
nice -n 19 go test -mod=mod -vet=off -c -ldflags "$LDFLAGS" -o "$binary.tmp" k8s.io/kubernetes/test/e2e
mv "$binary.tmp" "$binary"
echo "$VERSION" > "$stamp"
echo "$binary" >&2
