#!/bin/sh
# Makes the shared certificates of a compose cluster once: a CA, one serving certificate for
# every replica and the balancer, client certificates for the admin and Prometheus (both in
# system:masters), an admin kubeconfig pointing at the balancer, the service-account signing
# key, and kubeconfigs for the optional controller manager, scheduler and kwok. Idempotent:
# existing certificates and keys are kept, missing ones made.
# Usage: make-certs.sh <dir> [extra SAN DNS names...]
set -eu
dir=${1:?usage: make-certs.sh <dir> [dns names...]}
shift || true
mkdir -p "$dir"
cd "$dir"
sans="DNS:localhost,DNS:capstan,DNS:replica1,DNS:replica2,DNS:replica3,DNS:haproxy,IP:127.0.0.1"
for name in "$@"; do sans="$sans,DNS:$name"; done

# What exists is kept; what a newer version of this script makes is added.
[ -f ca.crt ] || openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=capstan-ca" -keyout ca.key -out ca.crt

leaf() { # name subject extensions
  [ -f "$1.crt" ] && return 0
  openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$1.key" -out "$1.csr"
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 365 -extfile "$1.ext" -out "$1.crt"
  rm -f "$1.csr" "$1.ext"
}
leaf serving "/CN=capstan" "subjectAltName=$sans
extendedKeyUsage=serverAuth"
leaf admin "/O=system:masters/CN=kubernetes-admin" "extendedKeyUsage=clientAuth"
leaf prometheus "/O=system:masters/CN=prometheus" "extendedKeyUsage=clientAuth"
leaf controller-manager "/CN=system:kube-controller-manager" "extendedKeyUsage=clientAuth"
leaf scheduler "/CN=system:kube-scheduler" "extendedKeyUsage=clientAuth"
# One key signs every replica's service-account tokens, so any replica accepts any token.
[ -f sa.key ] || openssl genrsa -out sa.key 2048

b64() { base64 < "$1" | tr -d '\n'; }
kubeconfig() { # file server client-certificate-name
  cat > "$1" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: capstan
  cluster:
    server: $2
    certificate-authority-data: $(b64 ca.crt)
users:
- name: $3
  user:
    client-certificate-data: $(b64 "$3.crt")
    client-key-data: $(b64 "$3.key")
contexts:
- name: capstan
  context: {cluster: capstan, user: $3}
current-context: capstan
KUBECONFIG
}
kubeconfig admin.kubeconfig https://localhost:6443 admin
# For the optional controllers (compose profile "controllers"), inside the compose network.
kubeconfig controller-manager.kubeconfig https://haproxy:6443 controller-manager
kubeconfig scheduler.kubeconfig https://haproxy:6443 scheduler
kubeconfig kwok.kubeconfig https://haproxy:6443 admin
# Replicas run as an unprivileged user and must read the keys.
chmod 0644 ./*.crt ./*.key ./*.kubeconfig
echo "certificates written to $dir"
