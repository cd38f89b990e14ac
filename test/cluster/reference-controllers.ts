/**
 * The reference kube-controller-manager and kube-scheduler (1.34, built from their Go module by
 * tools/reference/build-controllers.sh) and the node simulator kwok, run against a capstan as
 * ordinary clients, each as the identity a real cluster gives it: the controller manager as
 * `system:kube-controller-manager` (and its controllers as their own service accounts), the
 * scheduler as `system:kube-scheduler`, kwok as an admin (it plays every kubelet). Their stderr
 * is kept for the test to read.
 *
 *   buildReferenceControllers();                      // once, long the first time
 *   const plane = await startReferenceControllers(server);
 *   await addSimulatedNodes(server, ['kwok-node-0'], 120_000);
 *   ...
 *   plane.logs('kube-controller-manager');
 *   await plane.stop();
 *
 * `startCluster` does all of it for a fresh capstan (the conformance suite's cluster).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf } from '../../server/pki/certificates';
import { startServer, type TestServer } from '../helpers/server';
import { freePort } from '../helpers/ports';
import { startKubeletStandIn, type KubeletStandIn } from './kubelet-stand-in';
import { KUBELET_ADDRESS_FLAG, installKwokCrds, kwokKubeletApiArgs, portForwardTargets } from './kwok-kubelet-api';
import { startProcessRuntime } from './process-runtime';

const BUILD_SCRIPT = join(__dirname, '..', '..', 'tools', 'reference', 'build-controllers.sh');
const CACHE = process.env.KUBE_REF_CACHE ?? join(homedir(), '.cache', 'kube-ref');
const BIN = join(CACHE, 'bin');
/** kwok's stages, written by the build script from kwok's module. */
const KWOK_STAGES = join(CACHE, 'kwok-stages.yaml');
/** As kwokctl runs it: nodes renew a Lease, as kubelets do, well inside the node monitor's grace period. */
const NODE_LEASE_SECONDS = 40;
const STOP_TIMEOUT_MS = 10_000;
const SERVING_TIMEOUT_MS = 60_000;
const BIND_ATTEMPTS = 3;
const NODE_POLL_MS = 500;
const NODES_READY_TIMEOUT_MS = 120_000;

export type ReferenceProcessName = 'kube-controller-manager' | 'kube-scheduler' | 'kwok';

export interface ReferenceControllers {
  /** What the process wrote to stderr (klog's lines) and stdout so far. */
  logs(name: ReferenceProcessName): string;
  /** Where the controller manager and the scheduler serve their health and metrics. */
  readonly servingUrls: Readonly<Record<'kube-controller-manager' | 'kube-scheduler', string>>;
  /** SIGTERM to each, waiting for the exits (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** Builds what the cache lacks; skips the rest. Synchronous: the test cannot start without them. */
export function buildReferenceControllers(timeoutMs: number): void {
  execFileSync(BUILD_SCRIPT, { stdio: 'inherit', timeout: timeoutMs });
}

/** Builds kwok and its stages alone when the cache lacks them (what tests of the kubelet API need). */
export function buildKwok(timeoutMs: number): void {
  execFileSync(BUILD_SCRIPT, ['kwok'], { stdio: 'inherit', timeout: timeoutMs });
}

/**
 * Flags capstan needs next to the controllers: none of its own copies of the controller
 * manager's controllers, and, as a kubeadm cluster has them, an authenticating proxy's CA and
 * headers, which capstan publishes in kube-system/extension-apiserver-authentication, and the
 * client certificate of that CA capstan presents to the extension API servers it proxies to.
 * The controllers' own HTTPS servers read that ConfigMap and, finding no proxy CA there, log an
 * error every few seconds (as they do against the reference configured so). The front-proxy
 * CA and the client certificate are written under `dir`.
 */
export async function serverFlagsForControllers(dir: string): Promise<string[]> {
  const frontProxyCa = await issueCa({ commonName: 'front-proxy-ca', validDays: 1 });
  const caFile = join(dir, 'front-proxy-ca.crt');
  writeFileSync(caFile, frontProxyCa.certPem);
  // What the server presents to extension API servers it proxies to, as kubeadm issues it.
  const proxyClient = await issueLeaf({
    ca: frontProxyCa,
    subject: 'CN=front-proxy-client',
    usage: 'client',
    validDays: 1,
  });
  writeFileSync(join(dir, 'front-proxy-client.crt'), proxyClient.certPem);
  writeFileSync(join(dir, 'front-proxy-client.key'), proxyClient.keyPem);
  return [
    `--proxy-client-cert-file=${join(dir, 'front-proxy-client.crt')}`,
    `--proxy-client-key-file=${join(dir, 'front-proxy-client.key')}`,
    // The controller manager runs the controllers capstan otherwise runs itself: none of capstan's copies.
    '--controllers=',
    `--requestheader-client-ca-file=${caFile}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
  ];
}

interface Identity {
  readonly file: string;
  readonly subject: string;
}

/** A kubeconfig holding a client certificate for `subject`, signed by the server's own CA (its data dir keeps the key). */
/** Where a server is reached and keeps its PKI (`<dataDir>/pki`, the CA's key among it). */
type ServerPlace = Pick<TestServer, 'url' | 'dataDir' | 'kubeconfig'>;

async function writeKubeconfig(server: ServerPlace, identity: Identity): Promise<string> {
  const pki = join(server.dataDir, 'pki');
  const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
  const leaf = await issueLeaf({ ca, subject: identity.subject, usage: 'client', validDays: 1 });
  const b64 = (pem: string) => Buffer.from(pem).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'capstan', cluster: { server: server.url, 'certificate-authority-data': b64(ca.certPem) } }],
    users: [
      { name: 'user', user: { 'client-certificate-data': b64(leaf.certPem), 'client-key-data': b64(leaf.keyPem) } },
    ],
    contexts: [{ name: 'capstan', context: { cluster: 'capstan', user: 'user' } }],
    'current-context': 'capstan',
  };
  const path = join(server.dataDir, identity.file);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

interface Running {
  readonly child: ChildProcess;
  readonly port?: number;
  readonly exited: Promise<void>;
  output: string;
}

type Launch = (argv: readonly string[]) => [string, string[]];
const directly: Launch = ([command, ...rest]) => [command, rest];

function run(binary: string, args: readonly string[], port?: number, launch: Launch = directly): Running {
  const [command, commandArgs] = launch([join(BIN, binary), ...args]);
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  const running: Running = {
    child,
    port,
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
    output: '',
  };
  const keep = (chunk: Buffer) => (running.output += chunk.toString());
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return running;
}

async function stopProcess(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await running.exited;
  clearTimeout(timer);
}

/**
 * Starts a component that serves HTTPS on a free port, and waits until it serves there. A port
 * free when asked may be taken by another process before the component binds it (other tests
 * run on this machine): the component then exits, and starts again on another port.
 */
async function runServing(binary: string, args: (port: number) => readonly string[]): Promise<Running> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const running = run(binary, args(port), port);
    const deadline = Date.now() + SERVING_TIMEOUT_MS;
    while (!running.output.includes(`Serving securely on 127.0.0.1:${port}`)) {
      const exited = running.child.exitCode !== null || running.child.signalCode !== null;
      if (exited && running.output.includes('address already in use') && attempt < BIND_ATTEMPTS) break;
      if (exited || Date.now() > deadline) {
        await stopProcess(running);
        throw new Error(`${binary} did not start serving:\n${running.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (running.output.includes(`Serving securely on 127.0.0.1:${port}`)) return running;
  }
}

function runKwok(kubeconfig: string, args: readonly string[] = [], launch: Launch = directly): Running {
  return run(
    'kwok',
    [
      `--kubeconfig=${kubeconfig}`,
      `--config=${KWOK_STAGES}`,
      '--manage-all-nodes=true',
      `--node-lease-duration-seconds=${NODE_LEASE_SECONDS}`,
      ...args,
    ],
    undefined,
    launch,
  );
}

export interface Kwok {
  /** What kwok wrote so far. */
  logs(): string;
  stop(): Promise<void>;
}

/**
 * kwok alone, playing every node of the server behind `kubeconfig`: `args` add its own flags
 * (`--server-address` to serve the kubelet API, `--node-ip`, more `--config` files with its
 * ClusterLogs, ClusterExec ... configurations); `launch` turns its command line into the one run
 * (a network namespace's `nsenter`).
 */
export function startKwok(kubeconfig: string, args: readonly string[] = [], launch: Launch = directly): Kwok {
  const kwok = runKwok(kubeconfig, args, launch);
  return { logs: () => kwok.output, stop: () => stopProcess(kwok) };
}

/**
 * Each serves its health and metrics on a free port, authenticating and authorizing callers
 * through the servers (TokenReview, SubjectAccessReview and the extension-apiserver-authentication
 * ConfigMap), as kubeadm runs them.
 */
function serving(kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
  ];
}

/** The controller manager, every controller on, signing with the keys of `pki` (ca.crt, ca.key, sa.key). */
function runControllerManager(kubeconfig: string, pki: string): Promise<Running> {
  return runServing('kube-controller-manager', (port) => [
    ...serving(kubeconfig, port),
    '--controllers=*',
    '--use-service-account-credentials=true',
    `--service-account-private-key-file=${join(pki, 'sa.key')}`,
    `--root-ca-file=${join(pki, 'ca.crt')}`,
    `--cluster-signing-cert-file=${join(pki, 'ca.crt')}`,
    `--cluster-signing-key-file=${join(pki, 'ca.key')}`,
    '--v=2',
  ]);
}

export interface ControllerManager {
  /** What it wrote so far. */
  logs(): string;
  /** Whether it is still running. */
  running(): boolean;
  stop(): Promise<void>;
}

/**
 * The controller manager alone, against `url` (a balancer in front of replicas, say), with the
 * PKI deploy/pki/make-certs.sh wrote in `pkiDir` (its controller-manager client certificate, CA
 * and service-account key); its kubeconfig is written under `dir`.
 */
export async function startControllerManager(options: {
  readonly url: string;
  readonly pkiDir: string;
  readonly dir: string;
}): Promise<ControllerManager> {
  const b64 = (file: string) => readFileSync(join(options.pkiDir, file)).toString('base64');
  const kubeconfig = join(options.dir, 'controller-manager.kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'cluster', cluster: { server: options.url, 'certificate-authority-data': b64('ca.crt') } }],
      users: [
        {
          name: 'controller-manager',
          user: {
            'client-certificate-data': b64('controller-manager.crt'),
            'client-key-data': b64('controller-manager.key'),
          },
        },
      ],
      contexts: [{ name: 'cluster', context: { cluster: 'cluster', user: 'controller-manager' } }],
      'current-context': 'cluster',
    }),
  );
  const controllerManager = await runControllerManager(kubeconfig, options.pkiDir);
  return {
    logs: () => controllerManager.output,
    running: () => controllerManager.child.exitCode === null && controllerManager.child.signalCode === null,
    stop: () => stopProcess(controllerManager),
  };
}

/** `kwokArgs` add kwok's own flags (kwokKubeletApiArgs, to serve the kubelet API). */
export async function startReferenceControllers(
  server: ServerPlace,
  kwokArgs: readonly string[] = [],
): Promise<ReferenceControllers> {
  const controllerManager = await writeKubeconfig(server, {
    file: 'controller-manager.kubeconfig',
    subject: 'CN=system:kube-controller-manager',
  });
  const scheduler = await writeKubeconfig(server, {
    file: 'scheduler.kubeconfig',
    subject: 'CN=system:kube-scheduler',
  });
  const started: Running[] = [];
  try {
    const kwok = runKwok(server.kubeconfig, kwokArgs);
    started.push(kwok);
    const kubeControllerManager = await runControllerManager(controllerManager, join(server.dataDir, 'pki'));
    started.push(kubeControllerManager);
    const kubeScheduler = await runServing('kube-scheduler', (port) => [...serving(scheduler, port), '--v=2']);
    started.push(kubeScheduler);
    const processes: Record<ReferenceProcessName, Running> = {
      'kube-controller-manager': kubeControllerManager,
      'kube-scheduler': kubeScheduler,
      kwok,
    };
    return {
      logs: (name) => processes[name].output,
      servingUrls: {
        'kube-controller-manager': `https://127.0.0.1:${kubeControllerManager.port}`,
        'kube-scheduler': `https://127.0.0.1:${kubeScheduler.port}`,
      },
      stop: async () => {
        await Promise.all(Object.values(processes).map(stopProcess));
      },
    };
  } catch (error) {
    await Promise.all(started.map(stopProcess));
    throw error;
  }
}

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** Nodes made so far by this process: each gets the next /24 of the pod network (wrapping at 256). */
let simulatedNodesMade = 0;

/**
 * The /16 pods' addresses come from unless a test names another: loopback (127.100.0.0/16), or
 * where the process runs with `CAPSTAN_POD_NETWORK`, the network it names, which its loopback
 * answers (tools/conformance/pod-network.sh sets one up in a network namespace of its own: the
 * reference proxies to no loopback address and keeps none in Endpoints or EndpointSlices).
 */
const POD_NETWORK = process.env.CAPSTAN_POD_NETWORK ?? '127.100.0.0/16';

/**
 * A Node kwok plays (its annotation says so), with a kubelet's usual room; kwok makes it Ready
 * and keeps its Lease. Its pod CIDR (a /24 of the pod network of its own) is where kwok gives its
 * pods their addresses, which reach a pod's process when the process runtime runs it
 * (test/cluster/process-runtime.ts): its listeners bind every address.
 */
function simulatedNode(name: string, taints: readonly Taint[], podNetwork: string): object {
  const prefix = podNetwork.split('.').slice(0, 2).join('.');
  const podCidr = `${prefix}.${simulatedNodesMade++ % 256}.0/24`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        type: 'kwok',
      },
    },
    spec: { podCIDR: podCidr, podCIDRs: [podCidr], ...(taints.length > 0 ? { taints } : {}) },
    status: {
      allocatable: { cpu: '32', memory: '256Gi', pods: '110' },
      capacity: { cpu: '32', memory: '256Gi', pods: '110' },
    },
  };
}

interface NodeStatus {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string }[] };
}

/**
 * Creates the nodes for kwok (running) to play, and waits until each is Ready. `taints` are on
 * each from its creation, so no pod that does not tolerate them is ever scheduled there.
 * `podNetwork`, a /16, is where their pods' addresses come from: another than the default
 * for pods that never run a process, whose addresses must only be fit for Endpoints.
 */
export async function addSimulatedNodes(
  server: Pick<TestServer, 'request'>,
  names: readonly string[],
  timeoutMs: number,
  taints: readonly Taint[] = [],
  podNetwork = POD_NETWORK,
): Promise<void> {
  for (const name of names) {
    const created = await server.request('POST', '/api/v1/nodes', {
      body: JSON.stringify(simulatedNode(name, taints, podNetwork)),
      headers: { 'content-type': 'application/json' },
    });
    if (created.status !== 201) throw new Error(`creating node ${name}: ${created.status} ${created.body}`);
  }
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const node = await server.request('GET', `/api/v1/nodes/${name}`);
      const ready =
        node.status === 200 &&
        node
          .json<NodeStatus>()
          .status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True');
      if (ready) break;
      if (Date.now() > deadline)
        throw new Error(`node ${name} not Ready after ${timeoutMs} ms: ${node.status} ${node.body}`);
      await new Promise((resolve) => setTimeout(resolve, NODE_POLL_MS));
    }
  }
}

export interface Cluster {
  readonly server: TestServer;
  readonly plane: ReferenceControllers;
  /**
   * Writes each reference process's output so far to `<dir>/<prefix><name>.log` (a controller
   * manager that exited says why there), and the pods' processes' to `<dir>/<prefix>pods.log`.
   */
  writeLogs(dir: string, prefix: string): void;
  /** Stops the controllers, then capstan, and removes what was written. */
  stop(): Promise<void>;
}

const PROCESS_NAMES: readonly ReferenceProcessName[] = ['kube-controller-manager', 'kube-scheduler', 'kwok'];

/**
 * A fresh capstan (embedded SQLite) as a kubeadm cluster: the Node authorizer and NodeRestriction
 * on, the reference controllers in place of its own copies, and `nodes` simulated nodes
 * (kwok-node-0, 1, ...), Ready, whose pods of the suite's test image run as processes
 * (process-runtime.ts). kwok serves the nodes' kubelet API: those processes' logs and ports
 * (kwok-kubelet-api.ts), behind a stand-in that forwards their ports itself (kubelet-stand-in.ts).
 * The binaries must be built (buildReferenceControllers).
 */
export async function startCluster(options: {
  readonly nodes: number;
  /** More server flags, after kubeadm's. */
  readonly flags?: readonly string[];
}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-cluster-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  let server: TestServer | undefined;
  let plane: ReferenceControllers | undefined;
  let standIn: KubeletStandIn | undefined;
  try {
    // As kubeadm runs kube-apiserver: kubelets (the suite's node identities) read what their
    // pods use through the Node authorizer, and NodeRestriction keeps their writes to their own
    // objects; kubeadm allows privileged containers too (the suite's host-level pods ask for them).
    // No kube-proxy routes cluster IPs here, so webhooks and APIServices given by Service are
    // reached at their pods' addresses, as a server outside a cluster network is run.
    const kubeadmFlags = [
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      '--allow-privileged=true',
      '--enable-aggregator-routing=true',
    ];
    server = await startServer({
      flags: [
        ...(await serverFlagsForControllers(dir)),
        ...kubeadmFlags,
        KUBELET_ADDRESS_FLAG,
        ...(options.flags ?? []),
      ],
    });
    await installKwokCrds(server);
    // Serving before kwok starts, so that no node ever reports a port nobody serves.
    const kwokPort = await freePort();
    standIn = await startKubeletStandIn({ kwokPort, lookup: portForwardTargets(server) });
    plane = await startReferenceControllers(server, kwokKubeletApiArgs(kwokPort, standIn.port));
    await addSimulatedNodes(
      server,
      Array.from({ length: options.nodes }, (_, index) => `kwok-node-${index}`),
      NODES_READY_TIMEOUT_MS,
    );
  } catch (error) {
    await plane?.stop();
    await standIn?.stop();
    await server?.stop();
    removeDir();
    throw error;
  }
  const [started, controllers, kubeletApi] = [server, plane, standIn];
  const runtime = startProcessRuntime(started, BIN, join(dir, 'pods'), { kwok: true });
  return {
    server: started,
    plane: controllers,
    writeLogs: (logDir, prefix) => {
      for (const name of PROCESS_NAMES) writeFileSync(join(logDir, `${prefix}${name}.log`), controllers.logs(name));
      writeFileSync(join(logDir, `${prefix}pods.log`), runtime.logs());
    },
    stop: async () => {
      await runtime.stop();
      await controllers.stop();
      await kubeletApi.stop();
      await started.stop();
      removeDir();
    },
  };
}
