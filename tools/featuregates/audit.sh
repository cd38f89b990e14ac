#!/usr/bin/env bash
# Prints the table of docs/feature-gates.md: for every gate a 1.34 kube-apiserver accepts, where
# the reference's server-side code reads it (its registry, API helpers, validation, admission,
# authentication, control plane, and the apiserver and apiextensions libraries; kubelet,
# scheduler and controller code is left out, as it does not run in kube-apiserver) and which
# capstan modules name it. The reasons for gates read there and not here are written by hand
# below the table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mod=${GOMODCACHE:-$(go env GOMODCACHE)}/k8s.io
k=$mod/kubernetes@v1.34.4
a=$mod/apiserver@v0.34.4
x=$mod/apiextensions-apiserver@v0.34.4
dirs=("$k/pkg/registry" "$k/pkg/api" "$k/pkg/apis" "$k/plugin/pkg/admission" "$k/plugin/pkg/auth" "$k/pkg/controlplane"
  "$k/pkg/kubeapiserver" "$k/cmd/kube-apiserver" "$k/pkg/serviceaccount" "$k/pkg/auth" "$a/pkg" "$x/pkg")

echo '| gate | stage | default | locked | the reference reads it in | capstan reads it in |'
echo '|---|---|---|---|---|---|'
sed -nE "s/^  ([A-Za-z0-9]+): \{ stage: '([A-Z]+)', default: ([a-z]+), locked: ([a-z]+) \},?$/\1 \2 \3 \4/p" \
  "$root/server/config/feature-gates.ts" |
  while read -r gate stage default locked; do
    reference=$(grep -rlE "features\.$gate\b" "${dirs[@]}" --include='*.go' 2>/dev/null |
      grep -vE '_test\.go$|/testing/|/features/' |
      sed -E "s#^$k/##; s#^$a/#apiserver/#; s#^$x/#apiextensions-apiserver/#; s#/[^/]+\.go\$##" |
      sort -u | sed 's/.*/`&`/' | paste -sd ' ' - || true)
    # Code names a gate as a string or a member; recorded data (the bootstrap policy's gated
    # rules) as a `"gate"` entry.
    capstan=$({
      grep -rlE "'$gate'|\.$gate\b" "$root/server" --include='*.ts'
      grep -rlE "\"gate\": *\"$gate\"" "$root/server" --include='*.json'
    } | grep -v 'server/config/feature-gates.ts' | sed "s#^$root/##" | sort -u | sed 's/.*/`&`/' | paste -sd ' ' - || true)
    echo "| $gate | $stage | $default | $locked | ${reference:-none: not a kube-apiserver gate} | ${capstan:--} |"
  done
