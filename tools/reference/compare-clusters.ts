/**
 * `node dist/tools/reference/compare-clusters.js <workload.yaml> [<steps.json>]`: the reference
 * kube-controller-manager, kube-scheduler and kwok (two simulated nodes) run against
 * kube-apiserver and then against capstan, each on an etcd of its own, as a kubeadm cluster runs
 * them; kubectl creates namespace `app`, applies the workload and runs the steps (kubectl
 * arguments run from the current directory, so a step may apply another file; or a number of
 * milliseconds to wait); after a settling wait every object of the kinds listed is read from
 * both and compared. Prints what differs, past what two clusters cannot share (uids, times,
 * generated name suffixes, addresses, allocated ports, certificates), and the
 * optimistic-concurrency conflicts and AlreadyExists each controller manager logged, by
 * controller and by error.
 *
 * Timing differs between two runs of anything, so a difference is a lead to check, not a
 * verdict: a rollout that one cluster finished and the other not yet shows as Pods that differ.
 * Needs the reference binaries (tools/reference/build-kube-apiserver.sh, build-controllers.sh).
 */
import { mkdirSync, mkdtempSync, readdirSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd } from '../../test/helpers/etcd';
import { differences } from '../../test/helpers/json-differences';
import { maskedJson, maskedText, VOLATILE_TEXT, type TextMask } from '../../test/helpers/masked-json';
import { startReferenceApiserver } from '../../test/helpers/reference-apiserver';
import { startServer, type TestServer } from '../../test/helpers/server';
import {
  addSimulatedNodes,
  serverFlagsForControllers,
  startReferenceControllers,
} from '../../test/cluster/reference-controllers';
import { installKwokCrds } from '../../test/cluster/kwok-kubelet-api';

const NODES = ['kwok-node-0', 'kwok-node-1'];
const NODES_READY_MS = 120_000;
const SETTLE_MS = 40_000;
const KUBEADM_FLAGS = [
  '--authorization-mode=Node,RBAC',
  '--enable-admission-plugins=NodeRestriction',
  '--allow-privileged=true',
];
const KINDS = [
  'namespaces',
  'nodes',
  'pods',
  'replicasets',
  'deployments',
  'statefulsets',
  'daemonsets',
  'controllerrevisions',
  'jobs',
  'cronjobs',
  'services',
  'endpoints',
  'endpointslices',
  'persistentvolumes',
  'persistentvolumeclaims',
  'poddisruptionbudgets',
  'horizontalpodautoscalers',
  'resourcequotas',
  'configmaps',
  'secrets',
  'serviceaccounts',
  'limitranges',
  'ingresses',
  'networkpolicies',
  'priorityclasses',
  'clusterroles',
  'clusterrolebindings',
  'roles',
  'rolebindings',
  'certificatesigningrequests',
  'customresourcedefinitions',
  'widgets.example.com',
];
/** Members whose values two clusters cannot share: shown as `<volatile>`. */
const VOLATILE = new Set([
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'time',
  'lastTransitionTime',
  'lastUpdateTime',
  'lastProbeTime',
  'lastHeartbeatTime',
  'startTime',
  'startedAt',
  'finishedAt',
  'completionTime',
  'lastScheduleTime',
  'renewTime',
  'acquireTime',
  'clusterIP',
  'clusterIPs',
  'nodePort',
  'podIP',
  'podIPs',
  'hostIP',
  'hostIPs',
  'podCIDR',
  'podCIDRs',
  'addresses',
  'nodeName',
  'hostname',
  'targetPort',
  'ca.crt',
  'certificate',
  'token',
  'client-ca-file',
  'requestheader-client-ca-file',
]);

type Json = null | boolean | number | string | Json[] | { [member: string]: Json };
type Step = readonly string[] | number;

interface Cluster {
  readonly server: Pick<TestServer, 'url' | 'dataDir' | 'kubeconfig' | 'request' | 'kubectl'>;
  stop(): Promise<void>;
}

/** What differs between two clusters in any string: volatile parts, generated suffixes, node names. */
const CLUSTER_TEXT: readonly TextMask[] = [
  ...VOLATILE_TEXT,
  [/-[a-z0-9]{5}\b/g, '-<suffix>'],
  [/kwok-node-\d/g, 'kwok-node-<n>'],
];

function clusterText(text: string): string {
  return maskedText(text, CLUSTER_TEXT);
}

function masked(value: Json): Json {
  return maskedJson(value, {
    text: clusterText,
    member: (name, item, walk) => (VOLATILE.has(name) ? '<volatile>' : walk(item)),
  }) as Json;
}

/** The objects of each kind by namespace and masked name, a group's objects in a stable order. */
function grouped(items: readonly Json[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const item of items) {
    const metadata = (item as { metadata: { namespace?: string; name: string } }).metadata;
    const key = `${metadata.namespace ?? ''}/${clusterText(metadata.name)}`;
    groups.set(key, [...(groups.get(key) ?? []), JSON.stringify(masked(item))]);
  }
  for (const objects of groups.values()) objects.sort();
  return groups;
}

function compareKind(kind: string, reference: readonly Json[], capstan: readonly Json[]): string[] {
  const theirs = grouped(reference);
  const ours = grouped(capstan);
  const lines: string[] = [];
  for (const key of [...new Set([...theirs.keys(), ...ours.keys()])].sort()) {
    const [left, right] = [theirs.get(key) ?? [], ours.get(key) ?? []];
    if (left.length !== right.length) {
      lines.push(`${kind} ${key}: reference has ${left.length}, capstan ${right.length}`);
      continue;
    }
    const seen = new Set<string>();
    left.forEach((object, index) => {
      for (const line of differences(JSON.parse(right[index]) as Json, JSON.parse(object) as Json)) {
        if (!seen.has(line)) lines.push(`${kind} ${key}: ${line}`);
        seen.add(line);
      }
    });
  }
  return lines;
}

async function startReferenceCluster(etcdServers: readonly string[], dir: string): Promise<Cluster> {
  // capstan's own PKI (EC keys), which the controllers' kubeconfigs are issued from.
  const throwaway = await startServer();
  const pki = join(dir, 'pki');
  mkdirSync(pki);
  for (const file of readdirSync(join(throwaway.dataDir, 'pki')))
    copyFileSync(join(throwaway.dataDir, 'pki', file), join(pki, file));
  await throwaway.stop();
  copyFileSync(join(pki, 'apiserver.crt'), join(pki, 'serving.crt'));
  copyFileSync(join(pki, 'apiserver.key'), join(pki, 'serving.key'));
  // The reference has no `--controllers`: it runs none of the controller manager's.
  const flags = (await serverFlagsForControllers(dir)).filter((flag) => !flag.startsWith('--controllers'));
  const reference = await startReferenceApiserver({ etcdServers, pkiDir: pki, flags: [...flags, ...KUBEADM_FLAGS] });
  return { server: { ...reference, dataDir: dir }, stop: () => reference.stop() };
}

async function startCapstanCluster(etcdServers: readonly string[], dir: string): Promise<Cluster> {
  const flags = await serverFlagsForControllers(dir);
  const capstan = await startServer({ etcdServers, flags: [...flags, ...KUBEADM_FLAGS] });
  return { server: capstan, stop: () => capstan.stop() };
}

/** Runs the workload on `cluster`: the objects of each kind, and the controller manager's log. */
async function runWorkload(
  label: string,
  cluster: Cluster,
  workload: string,
  steps: readonly Step[],
): Promise<{ objects: Record<string, Json[]>; controllerManagerLog: string }> {
  const { server } = cluster;
  const kubectl = async (args: readonly string[], input?: string) => {
    const result = await server.kubectl(args, input === undefined ? {} : { input });
    const last = result.stdout.trim().split('\n').at(-1) ?? '';
    console.log(`[${label}] kubectl ${args.join(' ')}: ${result.code} ${last} ${result.stderr.trim()}`.slice(0, 400));
  };
  await installKwokCrds(server);
  const plane = await startReferenceControllers(server);
  try {
    await addSimulatedNodes(server, NODES, NODES_READY_MS);
    await kubectl(['create', 'namespace', 'app']);
    await kubectl(['apply', '-f', '-'], workload);
    for (const step of steps) {
      if (typeof step === 'number') await new Promise((resolve) => setTimeout(resolve, step));
      else await kubectl(step);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const objects: Record<string, Json[]> = {};
    for (const kind of KINDS) {
      const listed = await server.kubectl(['get', kind, '--all-namespaces', '-o', 'json']);
      objects[kind] = listed.code === 0 ? (JSON.parse(listed.stdout) as { items: Json[] }).items : [];
    }
    return { objects, controllerManagerLog: plane.logs('kube-controller-manager') };
  } finally {
    await plane.stop();
  }
}

/**
 * Lines of a controller manager's log that say a write lost a race: each distinct error (masked),
 * led by its controller, with its count.
 */
function conflicts(log: string): Map<string, number> {
  const errors = new Map<string, number>();
  for (const line of log.split('\n')) {
    if (!line.includes('the object has been modified') && !line.includes('already exists')) continue;
    const controller = /logger="([^"]+)"/.exec(line)?.[1] ?? 'unnamed';
    const error = clusterText(/err="((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? line).slice(0, 240);
    errors.set(`${controller}: ${error}`, (errors.get(`${controller}: ${error}`) ?? 0) + 1);
  }
  return errors;
}

/** The conflicts' counts summed by controller. */
function byController(errors: ReadonlyMap<string, number>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [error, count] of errors) {
    const controller = error.slice(0, error.indexOf(': '));
    counts[controller] = (counts[controller] ?? 0) + count;
  }
  return counts;
}

async function main(workloadFile: string, stepsFile: string | undefined): Promise<number> {
  const workload = readFileSync(workloadFile, 'utf8');
  const steps = stepsFile === undefined ? [] : (JSON.parse(readFileSync(stepsFile, 'utf8')) as Step[]);
  const dir = mkdtempSync(join(tmpdir(), 'compare-clusters-'));
  const etcds = [await startEtcd(), await startEtcd()];
  try {
    const starts = { reference: startReferenceCluster, capstan: startCapstanCluster };
    const runs: Awaited<ReturnType<typeof runWorkload>>[] = [];
    for (const [index, label] of (['reference', 'capstan'] as const).entries()) {
      const clusterDir = join(dir, label);
      mkdirSync(clusterDir);
      const cluster: Cluster = await starts[label](etcds[index].endpoints, clusterDir);
      try {
        runs.push(await runWorkload(label, cluster, workload, steps));
      } finally {
        await cluster.stop();
      }
    }
    const [reference, capstan] = runs;
    const lines = KINDS.flatMap((kind) => compareKind(kind, reference.objects[kind], capstan.objects[kind]));
    for (const line of lines) console.log(line);
    for (const [label, run] of [
      ['reference', reference],
      ['capstan', capstan],
    ] as const) {
      const errors = conflicts(run.controllerManagerLog);
      console.log(`conflicts logged: ${label} ${JSON.stringify(byController(errors))}`);
      for (const [error, count] of errors) console.log(`  ${count}× ${error}`);
    }
    console.log(`${lines.length} differences`);
    return 0;
  } finally {
    await Promise.all(etcds.map((etcd) => etcd.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

const [workloadFile, stepsFile, ...rest] = process.argv.slice(2);
if (workloadFile === undefined || rest.length > 0) {
  console.error('usage: compare-clusters.js <workload.yaml> [<steps.json>]');
  process.exit(2);
}
main(workloadFile, stepsFile).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
