/**
 * The part of a kubelet kwok does not play: running a pod's containers. kwok reports pods
 * Running with an address from their node's pod CIDR (a loopback range here); this runtime runs,
 * as host processes, the containers whose image is a test image built here from its Go module
 * (agnhost, the reference suite's webhook and conversion servers among its commands; the sample
 * API server) or Debian's etcd, so a Service in front of such a pod reaches a real server. There is no container: a process sees
 * the host's file system and network. A container's volume mounts are files under the pod's own
 * directory, and every argument and environment value naming a mount path is pointed there; a
 * listener binds every address, so the pod's address reaches it (two pods serving the same port
 * at once cannot both run). Mounts under /run, the service account's credentials among them,
 * are bind-mounted at their own paths when this runs as root (withBindMounts). The volumes it writes are emptyDir, Secret, ConfigMap, the downward
 * API's pod metadata, and projected ones of those and of service account tokens (every pod's
 * `kube-api-access-*`). Containers of other images, and containers mounting a volume of another
 * kind, are left to kwok's pretence. As a kubelet, it reports a container that ended for good in
 * the pod's status (and the pod's phase once all have), and keeps each container's output as a
 * container runtime does (cri-log.ts), which kwok serves as the pod's log; the ports a pod's
 * processes listen on (listening-ports.ts) are where kwok forwards the pod's ports to.
 *
 *   const runtime = startProcessRuntime(server, join(cache, 'bin'), dir);
 *   ...
 *   runtime.logs();       // every container's output, for a failed test
 *   await runtime.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestServer } from '../helpers/server';
import { CriLog } from './cri-log';
import { applyKwokObject, deleteKwokObjects, logsOf, portForwardOf } from './kwok-kubelet-api';
import { listeningPorts } from './listening-ports';

/**
 * The test images this runtime runs: what names them, the binary that stands for them (built
 * into the cache's bin directory by tools/reference/build-controllers.sh, or, `onPath`, the
 * host's own: Debian's etcd), and the entry point a container's command may name it by.
 */
const IMAGES: readonly {
  readonly pattern: RegExp;
  readonly binary: string;
  readonly onPath?: true;
  readonly entrypoint: string;
  /**
   * A directory beside the binary holding the files the image keeps in its working directory
   * (`/`), which its program opens by relative names: they are copied into the pod's directory,
   * the process's working directory here. agnhost's porter serves its TLS ports with the
   * certificate and key its image adds (written by build-controllers.sh).
   */
  readonly workingFiles?: string;
}[] = [
  {
    pattern: /(^|\/)e2e-test-images\/agnhost:/,
    binary: 'agnhost',
    entrypoint: '/agnhost',
    workingFiles: 'agnhost-files',
  },
  { pattern: /(^|\/)e2e-test-images\/sample-apiserver:/, binary: 'sample-apiserver', entrypoint: '/sample-apiserver' },
  { pattern: /(^|\/)etcd:/, binary: 'etcd', onPath: true, entrypoint: '/usr/local/bin/etcd' },
];
/** A kubelet's reconcile loop, polled: a missed change cannot leave a process behind, only delay it. */
const POLL_MS = 500;
/**
 * How often the ports a pod's processes listen on are looked at, for kwok's port-forward: often,
 * since kwok reports a pod ready before its process has started (a client may connect at once).
 */
const PORTS_POLL_MS = 100;
/** Writes of a pod's status that meet a newer version are tried again, this many times in all. */
const STATUS_ATTEMPTS = 5;
/** A container that exits is started again after this (doubling, capped), as a kubelet's back-off. */
const RESTART_BACKOFF_MS = { first: 500, max: 8_000 };
const STOP_GRACE_MS = 2_000;
/** Each container's output kept for the logs: the last this many characters. */
const LOG_TAIL_CHARS = 64 * 1024;

interface Container {
  readonly name: string;
  readonly image?: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value?: string; readonly valueFrom?: unknown }[];
  readonly volumeMounts?: readonly { readonly name: string; readonly mountPath: string; readonly subPath?: string }[];
}

interface KeyToPath {
  readonly key: string;
  readonly path: string;
}

interface ObjectSource {
  readonly items?: readonly KeyToPath[];
  readonly optional?: boolean;
}

interface DownwardItems {
  readonly items?: readonly { readonly path: string; readonly fieldRef?: { readonly fieldPath: string } }[];
}

interface Volume {
  readonly name: string;
  readonly emptyDir?: object;
  readonly secret?: ObjectSource & { readonly secretName?: string };
  readonly configMap?: ObjectSource & { readonly name?: string };
  readonly downwardAPI?: DownwardItems;
  /** What every pod has (its service account's token, the cluster CA, its namespace), and more. */
  readonly projected?: {
    readonly sources?: readonly {
      readonly secret?: ObjectSource & { readonly name?: string };
      readonly configMap?: ObjectSource & { readonly name?: string };
      readonly downwardAPI?: DownwardItems;
      readonly serviceAccountToken?: {
        readonly audience?: string;
        readonly expirationSeconds?: number;
        readonly path: string;
      };
    }[];
  };
}

interface Pod {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid: string;
    readonly deletionTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: {
    readonly containers: readonly Container[];
    readonly volumes?: readonly Volume[];
    readonly restartPolicy?: string;
    readonly serviceAccountName?: string;
  };
  readonly status?: { readonly phase?: string; readonly podIP?: string };
}

/** How a container's last instance ended, as a kubelet reports it in the pod's status. */
interface Ended {
  readonly exitCode: number;
  readonly startedAt: string;
  readonly finishedAt: string;
}

interface ContainerStatus {
  readonly name: string;
  readonly state?: { readonly terminated?: { readonly exitCode: number } };
}

/** The parts of a pod's status this runtime writes, beside the rest it keeps as read. */
interface PodStatus {
  phase?: string;
  conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[];
  containerStatuses?: ContainerStatus[];
}

/** One container's process, started again after it exits while its pod runs. */
interface RunningContainer {
  readonly label: string;
  /** The container's name in its pod. */
  readonly name: string;
  /** Its log file, read through kwok's kubelet API. */
  readonly log: CriLog;
  child?: ChildProcess;
  startedAt?: string;
  restartTimer?: NodeJS.Timeout;
  backoffMs: number;
  stopped: boolean;
  output: string;
}

export interface ProcessRuntime {
  /** Every container's recent output, each under a header naming its pod. */
  logs(): string;
  /** Stops polling and every process (SIGTERM, SIGKILL after a grace period), and removes the pods' files. */
  stop(): Promise<void>;
}

function imageOf(container: Container): (typeof IMAGES)[number] | undefined {
  return IMAGES.find((candidate) => candidate.pattern.test(container.image ?? ''));
}

/** The binary and argv standing for `container`, or undefined when its image is not one this runtime runs. */
function commandOf(container: Container, binDir: string): string[] | undefined {
  const image = imageOf(container);
  if (image === undefined) return undefined;
  const binary = image.onPath ? image.binary : join(binDir, image.binary);
  if (container.command === undefined || container.command.length === 0) return [binary, ...(container.args ?? [])];
  const [executable, ...rest] = container.command;
  if (executable !== image.entrypoint && executable !== image.binary) return undefined;
  return [binary, ...rest, ...(container.args ?? [])];
}

/** Points every mount path in `value` (the whole value, or what follows a flag's `=`) at the directory standing for it. */
function remapPaths(value: string, mounts: readonly { readonly from: string; readonly to: string }[]): string {
  for (const { from, to } of mounts) {
    const pattern = new RegExp(`(^|=)${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|$)`);
    if (pattern.test(value)) return value.replace(pattern, (_, before: string) => `${before}${to}`);
  }
  return value;
}

type Files = [string, Buffer][];
/** A volume's files; `missing` when a Secret or ConfigMap it needs is not there yet (a later poll tries again); `unsupported` for a kind this runtime does not write. */
type VolumeContent = Files | 'missing' | 'unsupported';

const fromBase64 = (data: unknown) =>
  Object.fromEntries(
    Object.entries((data ?? {}) as Record<string, string>).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  );
const fromText = (data: unknown) =>
  Object.fromEntries(
    Object.entries((data ?? {}) as Record<string, string>).map(([key, value]) => [key, Buffer.from(value)]),
  );

/** A Secret's or ConfigMap's keys (or the listed items) as files. */
async function objectFiles(
  server: TestServer,
  pod: Pod,
  kind: 'secrets' | 'configmaps',
  name: string | undefined,
  source: ObjectSource,
): Promise<VolumeContent> {
  const answer = await server.request('GET', `/api/v1/namespaces/${pod.metadata.namespace}/${kind}/${name ?? ''}`);
  if (answer.status === 404) return source.optional === true ? [] : 'missing';
  if (answer.status !== 200) throw new Error(`GET ${kind} ${name}: ${answer.status} ${answer.body}`);
  const object = answer.json<Record<string, unknown>>();
  const data: Record<string, Buffer> =
    kind === 'secrets' ? fromBase64(object.data) : { ...fromText(object.data), ...fromBase64(object.binaryData) };
  if (source.items === undefined) return Object.entries(data);
  return source.items.filter((item) => item.key in data).map((item) => [item.path, data[item.key]]);
}

/** The downward API's files for the pod's own metadata; `unsupported` for a field it does not give. */
function downwardFiles(pod: Pod, source: DownwardItems): VolumeContent {
  const asLines = (map: Readonly<Record<string, string>> = {}) =>
    Object.entries(map)
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join('\n');
  const fields: Record<string, string> = {
    'metadata.name': pod.metadata.name,
    'metadata.namespace': pod.metadata.namespace,
    'metadata.uid': pod.metadata.uid,
    'metadata.labels': asLines(pod.metadata.labels),
    'metadata.annotations': asLines(pod.metadata.annotations),
  };
  const files: Files = [];
  for (const item of source.items ?? []) {
    const value = item.fieldRef === undefined ? undefined : fields[item.fieldRef.fieldPath];
    if (value === undefined) return 'unsupported';
    files.push([item.path, Buffer.from(value)]);
  }
  return files;
}

/** A token of the pod's service account, bound to the pod, as a kubelet requests one (TokenRequest). */
async function tokenFile(
  server: TestServer,
  pod: Pod,
  source: { readonly audience?: string; readonly expirationSeconds?: number; readonly path: string },
): Promise<Files> {
  const account = pod.spec.serviceAccountName ?? 'default';
  const request = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {
      audiences: source.audience ? [source.audience] : [],
      expirationSeconds: source.expirationSeconds ?? 3607,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid },
    },
  };
  const path = `/api/v1/namespaces/${pod.metadata.namespace}/serviceaccounts/${account}/token`;
  const answer = await server.request('POST', path, {
    body: JSON.stringify(request),
    headers: { 'content-type': 'application/json' },
  });
  if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.body}`);
  return [[source.path, Buffer.from(answer.json<{ status: { token: string } }>().status.token)]];
}

async function volumeContent(server: TestServer, pod: Pod, volume: Volume): Promise<VolumeContent> {
  if (volume.emptyDir !== undefined) return [];
  if (volume.secret !== undefined) return objectFiles(server, pod, 'secrets', volume.secret.secretName, volume.secret);
  if (volume.configMap !== undefined)
    return objectFiles(server, pod, 'configmaps', volume.configMap.name, volume.configMap);
  if (volume.downwardAPI !== undefined) return downwardFiles(pod, volume.downwardAPI);
  if (volume.projected === undefined) return 'unsupported';
  const files: Files = [];
  for (const source of volume.projected.sources ?? []) {
    let content: VolumeContent;
    if (source.secret !== undefined)
      content = await objectFiles(server, pod, 'secrets', source.secret.name, source.secret);
    else if (source.configMap !== undefined)
      content = await objectFiles(server, pod, 'configmaps', source.configMap.name, source.configMap);
    else if (source.downwardAPI !== undefined) content = downwardFiles(pod, source.downwardAPI);
    else if (source.serviceAccountToken !== undefined)
      content = await tokenFile(server, pod, source.serviceAccountToken);
    else content = 'unsupported';
    if (typeof content === 'string') return content;
    files.push(...content);
  }
  return files;
}

/**
 * Writes the pod's volumes under `podDir`, one directory each; resolves with the directory of
 * each volume it could write, or `missing` when a Secret or ConfigMap is not there yet.
 */
async function writeVolumes(server: TestServer, pod: Pod, podDir: string): Promise<Map<string, string> | 'missing'> {
  const directories = new Map<string, string>();
  for (const volume of pod.spec.volumes ?? []) {
    const content = await volumeContent(server, pod, volume);
    if (content === 'missing') return content;
    if (content === 'unsupported') continue;
    const dir = join(podDir, 'volumes', volume.name);
    mkdirSync(dir, { recursive: true });
    for (const [path, data] of content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), data);
    }
    directories.set(volume.name, dir);
  }
  return directories;
}

/**
 * Mounts under /run (where a pod's service account credentials are: `/var/run/secrets/
 * kubernetes.io/serviceaccount`, a path in-cluster clients hard-code) cannot be pointed
 * elsewhere; as root they are bind-mounted there instead, in a mount namespace of the process's
 * own over a fresh /run, so the host's /run is neither seen nor touched. Not root: they are
 * remapped like the others, and an in-cluster client in the container fails.
 */
const BIND_MOUNTS = process.getuid?.() === 0;
const UNDER_RUN = /^\/(var\/)?run\//;
const BIND_SCRIPT =
  'mount -t tmpfs -o size=1m,mode=755 capstan-pod-run /run || exit 1; while [ "$1" != -- ]; do mkdir -p "$2" && mount --bind "$1" "$2" || exit 1; shift 2; done; shift; exec "$@"';

/** `argv`, run with each mount bound at its path first (unshare and sh from util-linux and the base system); `argv` itself when there are none. */
function withBindMounts(
  mounts: readonly { readonly from: string; readonly to: string }[],
  argv: readonly string[],
): string[] {
  if (mounts.length === 0) return [...argv];
  const pairs = mounts.flatMap((mount) => [mount.to, mount.from]);
  return [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '--',
    'sh',
    '-c',
    BIND_SCRIPT,
    'sh',
    ...pairs,
    '--',
    ...argv,
  ];
}

/** Now, as a pod's status gives times: RFC 3339 in whole seconds (metav1.Time). */
const statusTime = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * Runs `argv` again whenever it exits, until stopped, as `restartPolicy` says; its output is kept
 * in `running.output` and its log file. `ended` hears of an exit after which it does not start again.
 */
function supervise(
  running: RunningContainer,
  command: { readonly argv: readonly string[]; readonly env: NodeJS.ProcessEnv; readonly cwd: string },
  restartPolicy: string,
  ended: (how: Ended) => void,
): void {
  const keep = (chunk: Buffer) => {
    running.output = (running.output + chunk.toString()).slice(-LOG_TAIL_CHARS);
  };
  const start = () => {
    running.restartTimer = undefined;
    if (running.stopped) return;
    running.log.start();
    running.startedAt = statusTime();
    const { argv, env, cwd } = command;
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.child = child;
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.stdout.on('data', running.log.writer('stdout'));
    child.stderr.on('data', running.log.writer('stderr'));
    child.on('error', (error) => keep(Buffer.from(`start failed: ${error.message}\n`)));
    // 'close', not 'exit': the output is all read by then, so the log is whole when the status says it ended.
    child.on('close', (code, signal) => {
      running.child = undefined;
      running.log.end();
      keep(Buffer.from(`[exited: ${signal ?? code}]\n`));
      const exitCode = code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
      const again = restartPolicy === 'Always' || (restartPolicy === 'OnFailure' && exitCode !== 0);
      if (running.stopped) return;
      if (!again) {
        ended({ exitCode, startedAt: running.startedAt ?? '', finishedAt: statusTime() });
        return;
      }
      running.restartTimer = setTimeout(start, running.backoffMs);
      running.backoffMs = Math.min(running.backoffMs * 2, RESTART_BACKOFF_MS.max);
    });
  };
  start();
}

/**
 * What a kubelet writes when `container` of `pod` has ended for good: its state terminated (reason
 * Completed for exit code 0, Error otherwise) and not ready, the pod's Ready and ContainersReady
 * conditions False, and, once every container has ended, the phase: Succeeded when each exited
 * 0, Failed otherwise. A pod since replaced (another uid) or gone is left alone.
 */
async function reportEnded(server: TestServer, pod: Pod, container: string, how: Ended): Promise<void> {
  const path = `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`;
  for (let attempt = 1; attempt <= STATUS_ATTEMPTS; attempt++) {
    const read = await server.request('GET', path);
    if (read.status === 404) return;
    const current = read.json<Pod & { status?: PodStatus }>();
    if (current.metadata.uid !== pod.metadata.uid || current.metadata.deletionTimestamp !== undefined) return;
    const status: PodStatus = { ...current.status };
    const terminated = {
      exitCode: how.exitCode,
      reason: how.exitCode === 0 ? 'Completed' : 'Error',
      startedAt: how.startedAt,
      finishedAt: how.finishedAt,
    };
    status.containerStatuses = (status.containerStatuses ?? []).map((each) =>
      each.name === container ? { ...each, ready: false, started: false, state: { terminated } } : each,
    );
    const exitCodes = current.spec.containers.map(
      (each) =>
        status.containerStatuses?.find((candidate) => candidate.name === each.name)?.state?.terminated?.exitCode,
    );
    const allEnded = exitCodes.every((code) => code !== undefined);
    if (allEnded) status.phase = exitCodes.every((code) => code === 0) ? 'Succeeded' : 'Failed';
    const notReady = { status: 'False', reason: allEnded ? 'PodCompleted' : 'ContainersNotReady' };
    status.conditions = (status.conditions ?? []).map((condition) =>
      condition.type === 'Ready' || condition.type === 'ContainersReady'
        ? { ...condition, ...notReady, lastTransitionTime: how.finishedAt }
        : condition,
    );
    const written = await server.request('PUT', `${path}/status`, {
      body: JSON.stringify({ ...current, status }),
      headers: { 'content-type': 'application/json' },
    });
    if (written.status === 200) return;
    if (written.status !== 409 || attempt === STATUS_ATTEMPTS)
      throw new Error(`PUT ${path}/status: ${written.status} ${written.body}`);
  }
}

async function stopContainer(running: RunningContainer): Promise<void> {
  running.stopped = true;
  clearTimeout(running.restartTimer);
  const child = running.child;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts the runtime: it runs the test-image containers of every Running pod of `server`, with
 * the binaries of `binDir`, under `rootDir`. With `kwok` (kwok serving the nodes' kubelet API
 * from its objects, kwok-kubelet-api.ts), each pod it runs gets a `Logs` object naming its
 * containers' log files and a `PortForward` object naming the ports its processes listen on.
 */
export function startProcessRuntime(
  server: TestServer,
  binDir: string,
  rootDir: string,
  options: { readonly kwok?: boolean } = {},
): ProcessRuntime {
  /** By pod uid: the pod's containers that run here, and the ports last told to kwok. */
  const pods = new Map<
    string,
    { readonly pod: Pod; readonly dir: string; readonly containers: RunningContainer[]; ports: string }
  >();
  /** Containers whose pods are gone, for the logs: listed from the moment their stop begins. */
  const finished: RunningContainer[] = [];
  let polling = true;
  let pollError = '';
  let portsError = '';
  let reportError = '';
  const apiServer = new URL(server.url);

  const startPod = async (pod: Pod): Promise<void> => {
    const runnable = pod.spec.containers
      .map((container) => ({ container, argv: commandOf(container, binDir) }))
      .filter((each) => each.argv !== undefined);
    if (runnable.length === 0) return;
    const dir = join(rootDir, pod.metadata.uid);
    const volumes = await writeVolumes(server, pod, dir);
    if (volumes === 'missing') return;
    mkdirSync(join(dir, 'logs'), { recursive: true });
    for (const files of new Set(runnable.map(({ container }) => imageOf(container)?.workingFiles)))
      if (files !== undefined) cpSync(join(binDir, files), dir, { recursive: true });
    const containers: RunningContainer[] = [];
    const commands: Parameters<typeof supervise>[1][] = [];
    for (const { container, argv } of runnable) {
      const mounts = (container.volumeMounts ?? [])
        .filter((mount) => mount.subPath === undefined)
        .map((mount) => ({ from: mount.mountPath.replace(/\/+$/, ''), to: volumes.get(mount.name) }));
      // A mount this runtime cannot stand for (a volume kind it does not write) keeps the container to kwok's pretence.
      if (
        mounts.some((mount) => mount.to === undefined) ||
        (container.volumeMounts ?? []).some((mount) => mount.subPath !== undefined)
      )
        continue;
      const all = mounts as { from: string; to: string }[];
      const bound = BIND_MOUNTS ? all.filter((mount) => UNDER_RUN.test(mount.from)) : [];
      const paths = all.filter((mount) => !bound.includes(mount)).sort((a, b) => b.from.length - a.from.length);
      // A kubelet names the API server's Service to every container; here the server is reached at its own address.
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: dir,
        KUBERNETES_SERVICE_HOST: apiServer.hostname,
        KUBERNETES_SERVICE_PORT: apiServer.port,
      };
      for (const variable of container.env ?? [])
        if (variable.value !== undefined) env[variable.name] = remapPaths(variable.value, paths);
      containers.push({
        label: `${pod.metadata.namespace}/${pod.metadata.name}/${container.name}`,
        name: container.name,
        log: new CriLog(join(dir, 'logs', `${container.name}.log`)),
        backoffMs: RESTART_BACKOFF_MS.first,
        stopped: false,
        output: '',
      });
      commands.push({
        argv: withBindMounts(
          bound,
          (argv as string[]).map((arg) => remapPaths(arg, paths)),
        ),
        env,
        cwd: dir,
      });
    }
    // kwok must know the log files before a client can ask for them, which it may as soon as the pod runs.
    if (options.kwok)
      await applyKwokObject(
        server,
        logsOf(
          pod,
          containers.map((each) => ({ container: each.name, current: each.log.path, previous: each.log.previousPath })),
        ),
      );
    pods.set(pod.metadata.uid, { pod, dir, containers, ports: '' });
    containers.forEach((running, index) =>
      supervise(running, commands[index], pod.spec.restartPolicy ?? 'Always', (how) =>
        reportEnded(server, pod, running.name, how).catch(
          (error: unknown) => (reportError = `status of ${running.label}: ${String(error)}\n`),
        ),
      ),
    );
  };

  const stopPod = async (uid: string): Promise<void> => {
    const running = pods.get(uid);
    if (running === undefined) return;
    pods.delete(uid);
    finished.push(...running.containers);
    await Promise.all(running.containers.map(stopContainer));
    rmSync(running.dir, { recursive: true, force: true });
    if (options.kwok) await deleteKwokObjects(server, running.pod);
  };

  /**
   * Starts the pods kwok reports Running (with an address), and stops those deleted or gone. A
   * pod whose containers all ended stays, its files with it, until then: its logs are read after.
   * Pods of a namespace being deleted are stopped at once, before the namespace controller comes
   * to delete them: the reference suite deletes a spec's namespace as the spec ends and does not
   * wait, and the next spec's pods, sharing the host's network, would find their ports still taken.
   */
  const reconcile = async (): Promise<void> => {
    const [podList, namespaceList] = await Promise.all([
      server.request('GET', '/api/v1/pods'),
      server.request('GET', '/api/v1/namespaces'),
    ]);
    for (const answer of [podList, namespaceList])
      if (answer.status !== 200) throw new Error(`listing: ${answer.status} ${answer.body}`);
    const terminating = new Set(
      namespaceList
        .json<{ items: { metadata: { name: string; deletionTimestamp?: string } }[] }>()
        .items.filter((namespace) => namespace.metadata.deletionTimestamp !== undefined)
        .map((namespace) => namespace.metadata.name),
    );
    const present = podList
      .json<{ items: Pod[] }>()
      .items.filter((pod) => pod.metadata.deletionTimestamp === undefined && !terminating.has(pod.metadata.namespace));
    const kept = new Set(present.map((pod) => pod.metadata.uid));
    await Promise.all([...pods.keys()].filter((uid) => !kept.has(uid)).map(stopPod));
    for (const pod of present)
      if (pod.status?.phase === 'Running' && pod.status.podIP && !pods.has(pod.metadata.uid)) await startPod(pod);
  };

  /** Tells kwok each pod's listening ports, when they changed since it was last told. */
  const publishPorts = async (): Promise<void> => {
    for (const running of pods.values()) {
      const pids = running.containers.flatMap((container) => container.child?.pid ?? []);
      const ports = listeningPorts(pids);
      const key = JSON.stringify([...ports]);
      if (key === running.ports) continue;
      await applyKwokObject(server, portForwardOf(running.pod, ports));
      running.ports = key;
    }
  };

  const every = (ms: number, step: () => Promise<void>, failed: (error: unknown) => void) =>
    (async () => {
      while (polling) {
        await step().catch(failed);
        await new Promise((resolve) => setTimeout(resolve, ms));
      }
    })();
  const loops = [
    every(
      POLL_MS,
      () => reconcile().then(() => void (pollError = '')),
      (error) => (pollError = `poll failed: ${String(error)}\n`),
    ),
    ...(options.kwok
      ? [
          every(
            PORTS_POLL_MS,
            () => publishPorts().then(() => void (portsError = '')),
            (error) => (portsError = `publishing ports failed: ${String(error)}\n`),
          ),
        ]
      : []),
  ];

  return {
    logs: () =>
      [
        ...finished.map((container) => `== ${container.label} (pod gone)\n${container.output}`),
        ...[...pods.values()].flatMap((running) =>
          running.containers.map((container) => `== ${container.label}\n${container.output}`),
        ),
        pollError,
        portsError,
        reportError,
      ].join('\n'),
    stop: async () => {
      polling = false;
      await Promise.all(loops);
      await Promise.all([...pods.keys()].map(stopPod));
    },
  };
}
