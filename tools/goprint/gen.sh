#!/usr/bin/env bash
# Regenerates api/go-printable.ts from the Go toolchain's strconv.IsPrint. Run it with the Go
# release that builds the reference kube-apiserver (`go version ~/.cache/kube-ref/bin/kube-apiserver`),
# since Go's Unicode tables change with its releases.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/api/go-printable.ts
PATH="$PATH:/usr/local/go/bin" go run "$here/main.go" > "$out.tmp"
mv "$out.tmp" "$out"
(cd "$root" && npx prettier --write "$out" >/dev/null)
echo "wrote $out" >&2
