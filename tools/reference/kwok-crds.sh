#!/bin/sh
# Writes kwok's CustomResourceDefinitions into one file, as its Go module ships them: a cluster
# that runs kwok with `--enable-crds=Logs,PortForward,...` creates those of the kinds it enables,
# whose objects kwok then reads (per-pod logs and port-forward targets, say) instead of its
# configuration files. Used by tools/reference/build-controllers.sh.
#   kwok-crds.sh <file>
set -eu
out=${1:?usage: kwok-crds.sh <file>}
version=${KWOK_VERSION:-0.8.0}
dir=$(go mod download -json "sigs.k8s.io/kwok@v$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
for crd in "$dir"/kustomize/crd/bases/*.yaml; do
  echo '---'
  cat "$crd"
done > "$out.tmp"
mv "$out.tmp" "$out"
