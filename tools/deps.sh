#!/usr/bin/env bash
# Installs what the tests need on a fresh machine: the server's npm packages (tools/deps-npm.sh),
# Debian's etcd for the storage and client tests, haproxy for the cluster tests, ip and nsenter
# for the proxy tests' network namespace, and helm for the
# chart's tests. `make run` needs none of these but the npm packages.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
# The cluster tests put haproxy in front of the replicas.
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
# The proxy tests run in a network namespace of their own (test/helpers/network-namespace.ts).
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v nsenter >/dev/null 2>&1 || missing+=(util-linux)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${missing[*]} from Debian" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing: ${missing[*]} (install them with apt-get as root)" >&2
    exit 1
  fi
fi

# The Helm chart's tests run helm lint and helm template. Neither Debian nor npm packages helm,
# so it is built from its Go module (Go is on every machine of this project), once: about 220
# CPU-seconds with empty caches, two minutes on an idle 2-core machine.
HELM_VERSION=v3.17.3
if ! command -v helm >/dev/null 2>&1; then
  go=$(command -v go || echo /usr/local/go/bin/go)
  if [ ! -x "$go" ]; then
    echo "missing: helm, and Go to build it with" >&2
    exit 1
  fi
  echo "building helm $HELM_VERSION from its Go module into /usr/local/bin" >&2
  GOBIN=/usr/local/bin "$go" install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi

./tools/deps-npm.sh
