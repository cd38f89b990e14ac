/**
 * capstan in kube-apiserver's seat on a kubeadm 1.34 control plane: the PKI kubeadm makes, an
 * etcd that demands TLS client certificates (started as kubeadm's etcd manifest starts it, on
 * loopback), and `bin/kube-apiserver` started with the whole command of kubeadm's
 * kube-apiserver static-pod manifest (cmd/kubeadm/app/phases/controlplane/manifests.go).
 *
 * kubectl then works with kubeadm's admin.conf once the binding kubeadm makes for
 * kubeadm:cluster-admins exists, the `kubernetes` Service has the first address of the service
 * subnet, its endpoints name the advertise address, and a kube-apiserver without the etcd
 * client certificate does not start, saying why in one line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../helpers/capstan-process';
import { freePort } from '../helpers/ports';
import { runKubectl } from '../helpers/server';
import { makeKubeadmPki, type KubeadmPki } from './kubeadm-pki';
import { retryUntil } from '../helpers/wait-for';

const KUBE_APISERVER = join(__dirname, '..', '..', 'bin', 'kube-apiserver');
const NODE_NAME = 'kubeadm-node';
/** kubeadm's `localAPIEndpoint.advertiseAddress`: only written into the endpoints, never dialled here (TEST-NET-1). */
const ADVERTISE_ADDRESS = '192.0.2.10';
const SERVICE_SUBNET = '10.96.0.0/12';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

let workDir: string;
let pki: KubeadmPki;
let etcd: ChildProcess | undefined;
let etcdUrl: string;
let securePort: number;
let admin: string;
let superAdmin: string;
const started: ChildProcess[] = [];

/** The command of kubeadm 1.34's kube-apiserver manifest for this node (its flags in its order), etcd on `etcdUrl`. */
function kubeadmCommand(p: KubeadmPki, port: number): string[] {
  return [
    `--advertise-address=${ADVERTISE_ADDRESS}`,
    '--allow-privileged=true',
    '--authorization-mode=Node,RBAC',
    `--client-ca-file=${p.path('ca.crt')}`,
    '--enable-admission-plugins=NodeRestriction',
    '--enable-bootstrap-token-auth=true',
    `--etcd-cafile=${p.path('etcd/ca.crt')}`,
    `--etcd-certfile=${p.path('apiserver-etcd-client.crt')}`,
    `--etcd-keyfile=${p.path('apiserver-etcd-client.key')}`,
    `--etcd-servers=${etcdUrl}`,
    `--kubelet-client-certificate=${p.path('apiserver-kubelet-client.crt')}`,
    `--kubelet-client-key=${p.path('apiserver-kubelet-client.key')}`,
    '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
    `--proxy-client-cert-file=${p.path('front-proxy-client.crt')}`,
    `--proxy-client-key-file=${p.path('front-proxy-client.key')}`,
    '--requestheader-allowed-names=front-proxy-client',
    `--requestheader-client-ca-file=${p.path('front-proxy-ca.crt')}`,
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-username-headers=X-Remote-User',
    `--secure-port=${port}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${p.path('sa.pub')}`,
    `--service-account-signing-key-file=${p.path('sa.key')}`,
    `--service-cluster-ip-range=${SERVICE_SUBNET}`,
    `--tls-cert-file=${p.path('apiserver.crt')}`,
    `--tls-private-key-file=${p.path('apiserver.key')}`,
  ];
}

function track(child: ChildProcess): ChildProcess {
  started.push(child);
  return child;
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** etcd's /health over TLS with kubeadm's healthcheck-client certificate. */
function etcdHealthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const call = request(
      new URL('/health', url),
      {
        ca: readFileSync(pki.path('etcd/ca.crt')),
        cert: readFileSync(pki.path('etcd/healthcheck-client.crt')),
        key: readFileSync(pki.path('etcd/healthcheck-client.key')),
        timeout: 1_000,
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve(response.statusCode === 200 && body.includes('"health":"true"')));
      },
    );
    call.on('error', () => resolve(false));
    call.on('timeout', () => call.destroy());
    call.end();
  });
}

/** etcd as kubeadm's etcd manifest runs it (client and peer TLS, client certificates required), on loopback. */
async function startKubeadmEtcd(): Promise<void> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  etcdUrl = `https://127.0.0.1:${clientPort}`;
  const peerUrl = `https://127.0.0.1:${peerPort}`;
  const dataDir = join(
    existsSync('/dev/shm') ? await mkdtemp('/dev/shm/capstan-kubeadm-etcd-') : join(workDir, 'etcd'),
  );
  let log = '';
  etcd = track(
    spawn(
      'etcd',
      [
        `--name=${NODE_NAME}`,
        `--data-dir=${dataDir}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-client-urls=${etcdUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-cluster=${NODE_NAME}=${peerUrl}`,
        `--cert-file=${pki.path('etcd/server.crt')}`,
        `--key-file=${pki.path('etcd/server.key')}`,
        '--client-cert-auth=true',
        `--trusted-ca-file=${pki.path('etcd/ca.crt')}`,
        `--peer-cert-file=${pki.path('etcd/peer.crt')}`,
        `--peer-key-file=${pki.path('etcd/peer.key')}`,
        '--peer-client-cert-auth=true',
        `--peer-trusted-ca-file=${pki.path('etcd/ca.crt')}`,
        '--snapshot-count=10000',
        '--log-level=warn',
        '--logger=zap',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    ),
  );
  etcd.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)));
  etcd.once('exit', () => void rm(dataDir, { recursive: true, force: true }));
  const child = etcd;
  const healthy = await retryUntil(
    async () => child.exitCode === null && (await etcdHealthy(etcdUrl)),
    (answer) => answer || child.exitCode !== null,
    START_TIMEOUT_MS,
  );
  if (!healthy) throw new Error(`etcd did not become healthy:\n${log}`);
}

interface Run {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
}

/** `bin/kube-apiserver args`, from the work dir (where capstan keeps its ./data). */
function runKubeApiserver(args: readonly string[]): Run {
  const child = track(spawn(KUBE_APISERVER, args, { cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitStarted(run: Run): Promise<void> {
  const started = await retryUntil(
    () => /started in \d+ ms/.test(run.output()),
    (done) => done || run.child.exitCode !== null,
    START_TIMEOUT_MS,
    50,
  );
  if (run.child.exitCode !== null && !started)
    throw new Error(`kube-apiserver exited with ${run.child.exitCode}:\n${run.output()}`);
  if (!started) throw new Error(`kube-apiserver did not start within ${START_TIMEOUT_MS} ms:\n${run.output()}`);
}

async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  const result = await runKubectl(kubeconfig, args);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

beforeAll(async () => {
  ensureBuilt();
  workDir = await mkdtemp(join(tmpdir(), 'capstan-kubeadm-'));
  pki = await makeKubeadmPki({
    dir: workDir,
    nodeName: NODE_NAME,
    advertiseAddress: ADVERTISE_ADDRESS,
    kubernetesServiceIP: '10.96.0.1',
    certSANs: { ips: ['127.0.0.1'] },
  });
  await startKubeadmEtcd();
  securePort = await freePort();
  const run = runKubeApiserver(kubeadmCommand(pki, securePort));
  await waitStarted(run);
  const server = `https://127.0.0.1:${securePort}`;
  admin = await pki.kubeconfig({ name: 'admin', server, user: 'admin' });
  superAdmin = await pki.kubeconfig({ name: 'super-admin', server, user: 'super-admin' });
}, 90_000);

afterAll(async () => {
  await Promise.all(started.map(stopProcess));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

test("kubectl with kubeadm's admin.conf, once kubeadm's kubeadm:cluster-admins binding exists", async () => {
  // admin.conf's group is bound by kubeadm (with super-admin.conf, whose group is system:masters).
  const before = await runKubectl(admin, ['get', 'namespaces']);
  expect(before.code).not.toBe(0);
  expect(before.stderr).toContain('User "kubernetes-admin" cannot list resource "namespaces"');
  await kubectl(
    superAdmin,
    'create',
    'clusterrolebinding',
    'kubeadm:cluster-admins',
    '--clusterrole=cluster-admin',
    '--group=kubeadm:cluster-admins',
  );
  expect(await kubectl(admin, 'get', 'namespaces', '-o', 'name')).toContain('namespace/kube-system');
  await kubectl(admin, 'create', 'configmap', 'kubeadm-check', '--from-literal=stored=in-tls-etcd');
  expect(await kubectl(admin, 'get', 'configmap', 'kubeadm-check', '-o', 'jsonpath={.data.stored}')).toBe(
    'in-tls-etcd',
  );
  expect(await kubectl(admin, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.groups}')).toContain(
    'kubeadm:cluster-admins',
  );
});

test('the kubernetes Service has the first address of the service subnet; its endpoints name the advertise address', async () => {
  expect(
    await kubectl(
      superAdmin,
      '-n',
      'default',
      'get',
      'service',
      'kubernetes',
      '-o',
      'jsonpath={.spec.clusterIP} {.spec.ipFamilies}',
    ),
  ).toBe('10.96.0.1 ["IPv4"]');
  expect(
    await kubectl(
      superAdmin,
      '-n',
      'default',
      'get',
      'endpoints',
      'kubernetes',
      '-o',
      'jsonpath={.subsets[0].addresses[0].ip}:{.subsets[0].ports[0].port}',
    ),
  ).toBe(`${ADVERTISE_ADDRESS}:${securePort}`);
  expect(
    await kubectl(
      superAdmin,
      'get',
      'servicecidr',
      'kubernetes',
      '-o',
      'jsonpath={.spec.cidrs} {.status.conditions[0].type}={.status.conditions[0].status}',
    ),
  ).toBe('["10.96.0.0/12"] Ready=True');
  const slice = JSON.parse(
    await kubectl(superAdmin, '-n', 'default', 'get', 'endpointslice', 'kubernetes', '-o', 'json'),
  ) as Record<string, unknown>;
  expect(slice).toMatchObject({
    metadata: { labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [ADVERTISE_ADDRESS], conditions: { ready: true } }],
    ports: [{ name: 'https', protocol: 'TCP', port: securePort }],
  });
  // Services get their addresses from that subnet.
  await kubectl(superAdmin, 'create', 'service', 'clusterip', 'web', '--tcp=80:8080');
  const clusterIP = await kubectl(superAdmin, 'get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}');
  expect(clusterIP).toMatch(/^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
});

/** Runs kube-apiserver to its (bounded) exit: its code and its output's lines. */
async function failedStart(args: readonly string[]): Promise<{ code: number | null; lines: string[] }> {
  const run = runKubeApiserver(args);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), START_TIMEOUT_MS);
  const code = await run.exited;
  clearTimeout(timer);
  return { code, lines: run.output().trimEnd().split('\n') };
}

test('without the etcd client certificate kube-apiserver does not start, and says why in one line', async () => {
  const { code, lines } = await failedStart(
    kubeadmCommand(pki, await freePort()).filter((flag) => !/^--etcd-(certfile|keyfile)=/.test(flag)),
  );
  expect(code).toBe(1);
  // The progress line, then the failure: no stack trace, no warning.
  expect(lines).toEqual([
    `opening etcd at ${etcdUrl} (--etcd-servers)`,
    `capstan: opening etcd at ${etcdUrl} (--etcd-servers): etcd refused the TLS handshake (alert bad certificate): it wants a client certificate signed by its --trusted-ca-file (--etcd-certfile, --etcd-keyfile)`,
  ]);
});

test("without --etcd-cafile, etcd's certificate is checked against the system's roots, which do not hold kubeadm's etcd CA", async () => {
  const { code, lines } = await failedStart(
    kubeadmCommand(pki, await freePort()).filter((flag) => !flag.startsWith('--etcd-cafile=')),
  );
  expect(code).toBe(1);
  expect(lines.at(-1)).toBe(
    `capstan: opening etcd at ${etcdUrl} (--etcd-servers): etcd's serving certificate is not trusted (unable to verify the first certificate): --etcd-cafile must hold the CA that signed it, for the address of the URL`,
  );
});
