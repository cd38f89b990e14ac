#!/bin/sh
# Writes the stages kwok plays into one config file: the "fast" set its kwokctl clusters use
# (nodes Ready at once, with Lease heartbeats; pods Running at once; Job pods Succeeded;
# deleted pods gone), taken from kwok's Go module as it ships them. kwok runs no stage it is
# not given. Used by tools/reference/build-controllers.sh and the compose file's kwok service.
#   kwok-stages.sh <file>
set -eu
out=${1:?usage: kwok-stages.sh <file>}
version=${KWOK_VERSION:-0.8.0}
dir=$(go mod download -json "sigs.k8s.io/kwok@v$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
for stage in "$dir"/kustomize/stage/node/fast/*.yaml "$dir"/kustomize/stage/node/heartbeat-with-lease/*.yaml "$dir"/kustomize/stage/pod/fast/*.yaml; do
  [ "$(basename "$stage")" = kustomization.yaml ] && continue
  echo '---'
  cat "$stage"
done > "$out.tmp"
mv "$out.tmp" "$out"
