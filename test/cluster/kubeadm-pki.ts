/**
 * A control plane's files as `kubeadm init` (1.34) writes them under /etc/kubernetes/pki, made
 * with openssl: RSA 2048 keys, the three CAs (kubernetes, etcd-ca, front-proxy-ca), and the
 * certificates of its certlist with kubeadm's subjects, usages and SANs; sa.key/sa.pub; and the
 * kubeconfigs admin.conf (O=kubeadm:cluster-admins) and super-admin.conf (O=system:masters).
 *
 * `certSANs` adds SANs to the API server's certificate as kubeadm's `apiServer.certSANs` does
 * (the tests reach it on 127.0.0.1, which kubeadm's defaults do not name).
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface KubeadmPkiOptions {
  readonly dir: string;
  readonly nodeName: string;
  readonly advertiseAddress: string;
  /** The first address of the service subnet (10.96.0.1 for kubeadm's default 10.96.0.0/12). */
  readonly kubernetesServiceIP: string;
  readonly certSANs?: { readonly dns?: readonly string[]; readonly ips?: readonly string[] };
}

export interface KubeadmPki {
  /** `/etc/kubernetes/pki`'s stand-in. */
  readonly pkiDir: string;
  path(name: string): string;
  /** A kubeconfig file for `server`, as kubeadm writes admin.conf (embedded data). */
  kubeconfig(options: {
    readonly name: string;
    readonly server: string;
    readonly user: 'admin' | 'super-admin';
  }): Promise<string>;
}

interface Leaf {
  readonly name: string;
  readonly ca: string;
  readonly subject: string;
  readonly usages: readonly ('serverAuth' | 'clientAuth')[];
  readonly dns?: readonly string[];
  readonly ips?: readonly string[];
}

async function makeCa(pkiDir: string, name: string, commonName: string): Promise<void> {
  await run('openssl', [
    'req',
    '-x509',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-sha256',
    '-days',
    '2',
    '-keyout',
    join(pkiDir, `${name}.key`),
    '-out',
    join(pkiDir, `${name}.crt`),
    '-subj',
    `/CN=${commonName}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign',
  ]);
}

async function makeLeaf(pkiDir: string, leaf: Leaf): Promise<void> {
  const [key, csr, crt, ext] = ['key', 'csr', 'crt', 'ext'].map((suffix) => join(pkiDir, `${leaf.name}.${suffix}`));
  await run('openssl', [
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    csr,
    '-subj',
    leaf.subject,
  ]);
  const sans = [...(leaf.dns ?? []).map((name) => `DNS:${name}`), ...(leaf.ips ?? []).map((ip) => `IP:${ip}`)];
  const extensions = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${leaf.usages.join(',')}`,
    ...(sans.length > 0 ? [`subjectAltName=${sans.join(',')}`] : []),
  ];
  await writeFile(ext, `${extensions.join('\n')}\n`);
  await run('openssl', [
    'x509',
    '-req',
    '-sha256',
    '-days',
    '1',
    '-in',
    csr,
    '-CA',
    join(pkiDir, `${leaf.ca}.crt`),
    '-CAkey',
    join(pkiDir, `${leaf.ca}.key`),
    '-set_serial',
    String(Date.now() + Math.floor(Math.random() * 1e6)),
    '-extfile',
    ext,
    '-out',
    crt,
  ]);
}

export async function makeKubeadmPki(options: KubeadmPkiOptions): Promise<KubeadmPki> {
  const pkiDir = join(options.dir, 'pki');
  await mkdir(join(pkiDir, 'etcd'), { recursive: true });
  const { nodeName, advertiseAddress } = options;
  await Promise.all([
    makeCa(pkiDir, 'ca', 'kubernetes'),
    makeCa(pkiDir, 'etcd/ca', 'etcd-ca'),
    makeCa(pkiDir, 'front-proxy-ca', 'front-proxy-ca'),
  ]);
  const leaves: Leaf[] = [
    {
      name: 'apiserver',
      ca: 'ca',
      subject: '/CN=kube-apiserver',
      usages: ['serverAuth'],
      dns: [
        nodeName,
        'kubernetes',
        'kubernetes.default',
        'kubernetes.default.svc',
        'kubernetes.default.svc.cluster.local',
        ...(options.certSANs?.dns ?? []),
      ],
      ips: [options.kubernetesServiceIP, advertiseAddress, ...(options.certSANs?.ips ?? [])],
    },
    {
      name: 'apiserver-kubelet-client',
      ca: 'ca',
      subject: '/O=kubeadm:cluster-admins/CN=kube-apiserver-kubelet-client',
      usages: ['clientAuth'],
    },
    { name: 'front-proxy-client', ca: 'front-proxy-ca', subject: '/CN=front-proxy-client', usages: ['clientAuth'] },
    {
      name: 'etcd/server',
      ca: 'etcd/ca',
      subject: `/CN=${nodeName}`,
      usages: ['serverAuth', 'clientAuth'],
      dns: [nodeName, 'localhost'],
      ips: [advertiseAddress, '127.0.0.1', '::1'],
    },
    {
      name: 'etcd/peer',
      ca: 'etcd/ca',
      subject: `/CN=${nodeName}`,
      usages: ['serverAuth', 'clientAuth'],
      dns: [nodeName, 'localhost'],
      ips: [advertiseAddress, '127.0.0.1', '::1'],
    },
    {
      name: 'etcd/healthcheck-client',
      ca: 'etcd/ca',
      subject: '/CN=kube-etcd-healthcheck-client',
      usages: ['clientAuth'],
    },
    { name: 'apiserver-etcd-client', ca: 'etcd/ca', subject: '/CN=kube-apiserver-etcd-client', usages: ['clientAuth'] },
    // Not files of the pki dir: the users of admin.conf and super-admin.conf.
    { name: 'admin', ca: 'ca', subject: '/O=kubeadm:cluster-admins/CN=kubernetes-admin', usages: ['clientAuth'] },
    { name: 'super-admin', ca: 'ca', subject: '/O=system:masters/CN=kubernetes-super-admin', usages: ['clientAuth'] },
  ];
  await Promise.all(leaves.map((leaf) => makeLeaf(pkiDir, leaf)));
  await run('openssl', ['genrsa', '-out', join(pkiDir, 'sa.key'), '2048']);
  await run('openssl', ['rsa', '-in', join(pkiDir, 'sa.key'), '-pubout', '-out', join(pkiDir, 'sa.pub')]);

  const base64 = async (name: string) => (await readFile(join(pkiDir, name))).toString('base64');
  return {
    pkiDir,
    path: (name) => join(pkiDir, name),
    async kubeconfig({ name, server, user }) {
      const userName = user === 'admin' ? 'kubernetes-admin' : 'kubernetes-super-admin';
      const file = join(options.dir, `${name}.conf`);
      await writeFile(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          '- cluster:',
          `    certificate-authority-data: ${await base64('ca.crt')}`,
          `    server: ${server}`,
          '  name: kubernetes',
          'contexts:',
          '- context:',
          '    cluster: kubernetes',
          `    user: ${userName}`,
          `  name: ${userName}@kubernetes`,
          `current-context: ${userName}@kubernetes`,
          'users:',
          `- name: ${userName}`,
          '  user:',
          `    client-certificate-data: ${await base64(`${user}.crt`)}`,
          `    client-key-data: ${await base64(`${user}.key`)}`,
          '',
        ].join('\n'),
        { mode: 0o600 },
      );
      return file;
    },
  };
}
