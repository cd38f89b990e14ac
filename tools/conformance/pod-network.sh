#!/bin/sh
# Runs a command in a network namespace of its own whose loopback also answers every address of
# 198.18.0.0/16 (RFC 2544's benchmarking range: global unicast, routed nowhere else), and names
# that range in CAPSTAN_POD_NETWORK for the cluster's simulated nodes to give their pods
# addresses from (test/cluster/reference-controllers.ts). The reference proxies to no loopback
# address, so the suite's proxy specs need pods with such addresses; nothing leaves the
# namespace, and the host's network is untouched. Without root (or unshare and ip) the command
# runs as it is, its pods on loopback addresses.
#   tools/conformance/pod-network.sh npx jest test/conformance
set -eu
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
  echo "pod-network.sh: not root, or no unshare or ip: pods get loopback addresses" >&2
  exec "$@"
fi
export CAPSTAN_POD_NETWORK=198.18.0.0/16
exec unshare --net -- sh -c 'ip link set lo up && ip route add local "$CAPSTAN_POD_NETWORK" dev lo && exec "$@"' pod-network "$@"
