#!/usr/bin/env bash
# Starts the reference kube-apiserver (v1.34, built outside the tree, see
# /work/shared/notes/reference-server.md) on its own etcd with a CA made here and an admin
# client certificate in system:masters, for record.ts. Prints the URL; the pids go to $DIR/pids.
#   test/corpus/reference.sh /tmp/ref [kube-apiserver binary]
set -euo pipefail
DIR=${1:?work dir}
# Built by tools/reference/build-kube-apiserver.sh.
BIN=${2:-$HOME/.cache/kube-ref/bin/kube-apiserver}
mkdir -p "$DIR" && cd "$DIR"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
if [ ! -f ca.crt ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=corpus-ca 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout serving.key -out serving.csr -subj /CN=127.0.0.1 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > san.ext
  openssl x509 -req -in serving.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out serving.crt -days 2 -extfile san.ext 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj /O=system:masters/CN=admin 2>/dev/null
  openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 2 2>/dev/null
  openssl genrsa -out sa.key 2048 2>/dev/null
fi
CLIENT=$(free_port); PEER=$(free_port); PORT=$(free_port)
rm -rf etcd-data
etcd --data-dir etcd-data --listen-client-urls http://127.0.0.1:$CLIENT --advertise-client-urls http://127.0.0.1:$CLIENT \
  --listen-peer-urls http://127.0.0.1:$PEER >etcd.log 2>&1 &
echo $! > pids
"$BIN" --etcd-servers http://127.0.0.1:$CLIENT --secure-port $PORT --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
  --tls-cert-file serving.crt --tls-private-key-file serving.key --client-ca-file ca.crt \
  --service-account-issuer https://kubernetes.default.svc --service-account-key-file sa.key --service-account-signing-key-file sa.key \
  --authorization-mode RBAC --service-cluster-ip-range 10.96.0.0/12 --disable-admission-plugins ServiceAccount >apiserver.log 2>&1 &
echo $! >> pids
for _ in $(seq 60); do
  if curl -sf --cacert ca.crt --cert admin.crt --key admin.key "https://127.0.0.1:$PORT/readyz" >/dev/null; then echo "https://127.0.0.1:$PORT"; exit 0; fi
  sleep 1
done
echo "reference not ready, see $DIR/apiserver.log" >&2; exit 1
