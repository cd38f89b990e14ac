/**
 * kwok as the kubelet API of a cluster's simulated nodes: it serves logs and port-forwards of
 * every pod from what its objects say (a `Logs` object names the files a pod's containers log
 * to, a `PortForward` object where each of its ports is reached), objects of kwok's own CRDs,
 * which the cluster creates before kwok starts and the process runtime (process-runtime.ts)
 * writes for each pod it runs. capstan reaches kwok at the nodes' InternalIP (loopback), where
 * kwok's own nodes report it; their Hostname (the node's name) no resolver knows. A kubelet
 * stand-in in front of kwok (kubelet-stand-in.ts) forwards ports itself, to the targets the same
 * `PortForward` objects name (portForwardTargets).
 *
 *   await installKwokCrds(server);
 *   startKwok(kubeconfig, kwokKubeletApiArgs(await freePort()));
 *   await applyKwokObject(server, portForwardOf(pod, new Map([[80, '127.0.0.1']])));
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait-for';
import type { ForwardTarget, TargetLookup } from './kubelet-port-forward';

const CACHE = process.env.KUBE_REF_CACHE ?? join(homedir(), '.cache', 'kube-ref');
/** kwok's CRDs as its module ships them, written by tools/reference/build-controllers.sh. */
const KWOK_CRDS = join(CACHE, 'kwok-crds.yaml');
/** The kinds kwok reads from objects here; it reads the rest (none) from its configuration files. */
const OBJECT_KINDS = ['Logs', 'PortForward'] as const;
const API = '/apis/kwok.x-k8s.io/v1alpha1';
const FIELD_MANAGER = 'capstan-process-runtime';
const ESTABLISHED_TIMEOUT_MS = 30_000;

/** The server flag that has capstan dial a node's InternalIP for its kubelet API (kwok's nodes report 127.0.0.1). */
export const KUBELET_ADDRESS_FLAG = '--kubelet-preferred-address-types=InternalIP';

type Server = Pick<TestServer, 'request'>;

interface Crd {
  readonly metadata: { readonly name: string };
  readonly spec: { readonly names: { readonly kind: string } };
}

/** Creates kwok's CRDs of OBJECT_KINDS in `server` and waits until each is Established (kwok lists them as it starts). */
export async function installKwokCrds(server: Server): Promise<void> {
  const crds = parseAllDocuments(readFileSync(KWOK_CRDS, 'utf8'))
    .map((document) => document.toJS() as Crd | null)
    .filter((crd): crd is Crd => crd !== null && (OBJECT_KINDS as readonly string[]).includes(crd.spec.names.kind));
  if (crds.length !== OBJECT_KINDS.length) throw new Error(`${KWOK_CRDS} lacks a CRD of ${OBJECT_KINDS.join(', ')}`);
  for (const crd of crds) {
    const created = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: JSON.stringify(crd),
      headers: { 'content-type': 'application/json' },
    });
    if (created.status !== 201) throw new Error(`creating ${crd.metadata.name}: ${created.status} ${created.body}`);
  }
  for (const crd of crds)
    await waitFor(
      `${crd.metadata.name} Established`,
      async () => {
        const answer = await server.request(
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
        );
        const conditions =
          answer.json<{ status?: { conditions?: { type: string; status: string }[] } }>().status?.conditions ?? [];
        return conditions.some((condition) => condition.type === 'Established' && condition.status === 'True')
          ? true
          : undefined;
      },
      ESTABLISHED_TIMEOUT_MS,
    );
}

/**
 * kwok's flags to serve the kubelet API on loopback's `port` (plain HTTP and TLS on one port, a
 * certificate of its own), its nodes reporting 127.0.0.1 and `reportedPort` (a kubelet stand-in's
 * in front of kwok, kubelet-stand-in.ts; kwok's own by default), and to read its `Logs` and
 * `PortForward` objects.
 */
export function kwokKubeletApiArgs(port: number, reportedPort = port): string[] {
  return [
    `--server-address=127.0.0.1:${port}`,
    '--node-ip=127.0.0.1',
    `--node-port=${reportedPort}`,
    `--enable-crds=${OBJECT_KINDS.join(',')}`,
  ];
}

interface PodRef {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid: string };
}

interface KwokObject {
  readonly kind: (typeof OBJECT_KINDS)[number];
  readonly metadata: { readonly name: string; readonly namespace: string; readonly ownerReferences: object[] };
  readonly spec: object;
}

/** A pod's object is named as the pod (kwok finds it so), and owned by it: the garbage collector takes one left behind. */
const metadataFor = (pod: PodRef) => ({
  name: pod.metadata.name,
  namespace: pod.metadata.namespace,
  ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid }],
});

const plural = (kind: KwokObject['kind']) => (kind === 'Logs' ? 'logs' : 'portforwards');

/** The `Logs` object for `pod`: each container's current and previous log files (CRI format). */
export function logsOf(
  pod: PodRef,
  files: readonly { readonly container: string; readonly current: string; readonly previous: string }[],
): KwokObject {
  return {
    kind: 'Logs',
    metadata: metadataFor(pod),
    spec: {
      logs: files.map((file) => ({
        containers: [file.container],
        logsFile: file.current,
        previousLogsFile: file.previous,
        follow: true,
      })),
    },
  };
}

/** The `PortForward` object for `pod`: each port to the address (on this host) it is reached at. */
export function portForwardOf(pod: PodRef, ports: ReadonlyMap<number, string>): KwokObject {
  return {
    kind: 'PortForward',
    metadata: metadataFor(pod),
    spec: {
      forwards: [...ports].map(([port, address]) => ({ ports: [port], target: { port, address } })),
    },
  };
}

interface Forward {
  readonly ports?: readonly number[];
  readonly target?: ForwardTarget;
  readonly command?: readonly string[];
}

/**
 * Where `pod`'s `port` is reached, read from the pod's `PortForward` object as kwok reads it
 * (pkg/kwok/server's getPodsForward): the forward naming the port, else the first naming none;
 * rejected in kwok's words when there is none. A forward running a command, which kwok runs
 * itself, is none the process runtime writes, and is refused.
 */
export function portForwardTargets(server: Server): TargetLookup {
  return async (pod, port) => {
    const answer = await server.request(
      'GET',
      `${API}/namespaces/${pod.namespace}/${plural('PortForward')}/${pod.name}`,
    );
    if (answer.status === 404)
      throw new Error(`no forward found for port ${port} in pod "${pod.namespace}/${pod.name}"`);
    if (answer.status !== 200) throw new Error(`reading the pod's PortForward: ${answer.status} ${answer.body}`);
    const forwards = answer.json<{ spec?: { forwards?: Forward[] } }>().spec?.forwards ?? [];
    const forward =
      forwards.find((candidate) => candidate.ports?.includes(port)) ??
      forwards.find((candidate) => (candidate.ports ?? []).length === 0);
    if (forward === undefined)
      throw new Error(`forward not found for port ${port} in pod "${pod.namespace}/${pod.name}"`);
    if (forward.target !== undefined) return forward.target;
    if (forward.command === undefined) throw new Error('no target or command');
    throw new Error(
      `the forward of port ${port} in pod "${pod.namespace}/${pod.name}" runs a command, which kwok alone runs`,
    );
  };
}

/** Creates or replaces `object` (server-side apply, this runtime its only writer). */
export async function applyKwokObject(server: Server, object: KwokObject): Promise<void> {
  const path = `${API}/namespaces/${object.metadata.namespace}/${plural(object.kind)}/${object.metadata.name}`;
  const answer = await server.request('PATCH', `${path}?fieldManager=${FIELD_MANAGER}&force=true`, {
    body: JSON.stringify({ apiVersion: 'kwok.x-k8s.io/v1alpha1', ...object }),
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  if (answer.status !== 200 && answer.status !== 201)
    throw new Error(`applying ${path}: ${answer.status} ${answer.body}`);
}

/** Deletes `pod`'s objects; ones already gone (with their namespace, say) are fine. */
export async function deleteKwokObjects(server: Server, pod: PodRef): Promise<void> {
  for (const kind of OBJECT_KINDS) {
    const path = `${API}/namespaces/${pod.metadata.namespace}/${plural(kind)}/${pod.metadata.name}`;
    const answer = await server.request('DELETE', path);
    if (answer.status !== 200 && answer.status !== 404)
      throw new Error(`deleting ${path}: ${answer.status} ${answer.body}`);
  }
}
