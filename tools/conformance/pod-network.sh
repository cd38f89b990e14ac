#!/bin/sh
# Runs a command in a network namespace of its own whose loopback also answers every address of
# 198.18.0.0/16 (RFC 2544's benchmarking range: global unicast, routed nowhere else), and names
# that range in CAPSTAN_POD_NETWORK for the cluster's simulated nodes to give their pods
# addresses from (test/cluster/reference-controllers.ts). The reference proxies to no loopback
# address, so the suite's proxy specs need pods with such addresses; nothing leaves the
# namespace, and the host's network is untouched. As root the namespace is a network one alone;
# otherwise it comes with a user namespace (the user mapped to root, so that it may set the
# address up) and a mount namespace (where the process runtime may bind-mount, as root may).
# Where neither can be made (no unshare or ip, user namespaces off), the command runs as it is,
# its pods on loopback addresses.
#   tools/conformance/pod-network.sh npx jest test/conformance
set -eu
if [ "$(id -u)" = 0 ]; then
  namespaces="--net"
else
  namespaces="--user --map-root-user --net --mount"
fi
# shellcheck disable=SC2086 # the options are words
if ! command -v ip >/dev/null || ! unshare $namespaces true 2>/dev/null; then
  echo "pod-network.sh: no network namespace could be made here: pods get loopback addresses" >&2
  exec "$@"
fi
export CAPSTAN_POD_NETWORK=198.18.0.0/16
# shellcheck disable=SC2086
exec unshare $namespaces -- sh -c 'ip link set lo up && ip route add local "$CAPSTAN_POD_NETWORK" dev lo && exec "$@"' pod-network "$@"
