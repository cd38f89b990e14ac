#!/bin/sh
# Makes the shared certificates of a compose cluster once: a CA, one serving certificate for
# every replica and the balancer, client certificates for the admin and Prometheus (both in
# system:masters), and an admin kubeconfig pointing at the balancer. Idempotent: an existing
# CA is kept. Usage: make-certs.sh <dir> [extra SAN DNS names...]
set -eu
dir=${1:?usage: make-certs.sh <dir> [dns names...]}
shift || true
mkdir -p "$dir"
cd "$dir"
if [ -f ca.crt ]; then
  echo "certificates already in $dir"
  exit 0
fi

sans="DNS:localhost,DNS:capstan,DNS:replica1,DNS:replica2,DNS:replica3,DNS:haproxy,IP:127.0.0.1"
for name in "$@"; do sans="$sans,DNS:$name"; done

openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=capstan-ca" -keyout ca.key -out ca.crt

leaf() { # name subject extensions
  openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$1.key" -out "$1.csr"
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 365 -extfile "$1.ext" -out "$1.crt"
  rm -f "$1.csr" "$1.ext"
}
leaf serving "/CN=capstan" "subjectAltName=$sans
extendedKeyUsage=serverAuth"
leaf admin "/O=system:masters/CN=kubernetes-admin" "extendedKeyUsage=clientAuth"
leaf prometheus "/O=system:masters/CN=prometheus" "extendedKeyUsage=clientAuth"

b64() { base64 < "$1" | tr -d '\n'; }
cat > admin.kubeconfig <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: capstan
  cluster:
    server: https://localhost:6443
    certificate-authority-data: $(b64 ca.crt)
users:
- name: admin
  user:
    client-certificate-data: $(b64 admin.crt)
    client-key-data: $(b64 admin.key)
contexts:
- name: capstan
  context: {cluster: capstan, user: admin}
current-context: capstan
KUBECONFIG
# Replicas run as an unprivileged user and must read the keys.
chmod 0644 ./*.crt ./*.key admin.kubeconfig
echo "certificates written to $dir"
