/**
 * The reference kube-controller-manager and kube-scheduler 1.34 and the node simulator kwok run
 * against capstan as ordinary clients (test/cluster/reference-controllers.ts), on SQLite and on
 * etcd, and kubectl 1.33 drives them as a user would: a Deployment rolls out onto the simulated
 * nodes and back, a Job completes, a drain evicts through pods/eviction and stops at a
 * PodDisruptionBudget, a CSR approved with kubectl is signed by the controller manager, a
 * CronJob's Job runs at its minute, a node whose heartbeats stop is tainted unreachable and its
 * pod evicted. The controllers run as their own service accounts (the audit log tells who wrote
 * what, and that no one of them was refused), and their logs show no error the server caused.
 * The binaries are built from their Go modules when the cache lacks them, so the first run is
 * slow.
 */
import { X509Certificate } from 'node:crypto';
import { get as httpsGet } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateRequest } from '../helpers/certificate-request';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { runKubectl, startServer, type KubectlResult, type TestServer } from '../helpers/server';
import {
  addSimulatedNodes,
  buildReferenceControllers,
  serverFlagsForControllers,
  startReferenceControllers,
  type ReferenceControllers,
  type ReferenceProcessName,
} from './reference-controllers';
import { waitFor as pollUntil } from '../helpers/wait-for';

const BUILD_TIMEOUT_MS = 40 * 60_000;
const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 90_000;
const WAIT_MS = 60_000;
const POLL_MS = 500;
const NODES = ['kwok-node-0', 'kwok-node-1'];
/** A third node, whose heartbeats the test stops; its own taint keeps every other case's pods off it. */
const LOST_NODE = 'kwok-node-lost';
const LOST_NODE_TAINT = { key: 'capstan.test/lost', value: 'true', effect: 'NoSchedule' } as const;
/** The node monitor's grace period (50 s by default) and its 5 s period, with room. */
const NODE_LOSS_TIMEOUT_MS = 100_000;
/** An every-minute schedule runs at the next minute boundary; the Job then completes in seconds. */
const CRON_JOB_TIMEOUT_MS = 150_000;
/**
 * No pod here runs a process, so their addresses need reach nothing; they must be fit for the
 * Service's EndpointSlice, which takes no loopback address (RFC 2544's benchmarking range).
 */
const SIMULATED_POD_NETWORK = '198.18.0.0/16';
const IMAGE = 'registry.k8s.io/pause:3.10';
const NEXT_IMAGE = 'registry.k8s.io/pause:3.9';

const EVERY_MINUTE = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'every-minute' },
  spec: {
    schedule: '*/1 * * * *',
    jobTemplate: {
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'tick', image: IMAGE }] } } },
    },
  },
};

/** Runs on the lost node only, and tolerates its being unreachable for 2 s (rather than the default 300 s). */
const ON_LOST_NODE = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'on-lost-node' },
  spec: {
    nodeSelector: { 'kubernetes.io/hostname': LOST_NODE },
    tolerations: [
      { key: LOST_NODE_TAINT.key, operator: 'Exists', effect: LOST_NODE_TAINT.effect },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 },
    ],
    containers: [{ name: 'main', image: IMAGE }],
  },
};

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
`;

interface AuditEvent {
  readonly verb: string;
  readonly user: { readonly username?: string };
  readonly objectRef?: {
    readonly resource?: string;
    readonly subresource?: string;
    readonly namespace?: string;
    readonly name?: string;
  };
  readonly responseStatus?: { readonly code?: number; readonly message?: string };
  readonly requestURI: string;
}

/** A controller's, the scheduler's or the controller manager's own identity. */
function isControlPlaneUser(username: string | undefined): boolean {
  return (
    username !== undefined &&
    (username.startsWith('system:serviceaccount:kube-system:') ||
      username === 'system:kube-controller-manager' ||
      username === 'system:kube-scheduler')
  );
}

/**
 * Lines of the controllers' logs that would mean the server failed them: any error, and at
 * any level a list or watch that did not work, a kind or subresource it does not serve, a
 * refusal, a server error.
 */
const SERVER_FAULTS: readonly RegExp[] = [
  // Any line klog (the controller manager, the scheduler) or slog (kwok) writes at error level.
  /^E\d{4} /,
  /"level":"ERROR"/,
  /failed to list/i,
  /failed to watch/i,
  /the server could not find the requested resource/i,
  /is forbidden/i,
  /the server (has received too many requests|is currently unable|was unable to return a response)/i,
  /Internal error occurred/i,
  /\b50[0-4]\b.*(Internal Server Error|Service Unavailable|Gateway)/i,
  /unable to sync caches/i,
  /couldn't get resource list/i,
  /Unhandled Error/i,
];

/** Lines a real cluster's controllers print too, each for a reason the server does not cause. */
const BENIGN: readonly RegExp[] = [
  // Optimistic concurrency: a controller wrote from a cache one step behind, got 409 and syncs
  // again. The same scenario against kube-apiserver 1.34.4 logs as many (one at error level,
  // the disruption controller's).
  /the object has been modified; please apply your changes to the latest version and try again/,
  // The same race one step further: the ReplicaSet controller, answered 409 for a status
  // write, reads the ReplicaSet again to retry, and the garbage collector has deleted it in
  // between (its Deployment was just deleted). Its next sync finds it gone and stops.
  /replica_set\.go:\d+\] "Unhandled Error" err="sync \\"[^"\\]+\\" failed with replicasets\.apps \\"[^"\\]+\\" not found"/,
  // A controller that creates in a namespace being deleted is refused (403) by
  // NamespaceLifecycle, as by the reference's.
  /unable to create new content in namespace scratch because it is being terminated/,
  // Deleting a namespace, the namespace controller and the garbage collector both delete its
  // objects: the collector read one, the namespace controller deleted it, the collector's
  // delete is 404. Only in the namespace the test deletes.
  /garbagecollector\.go:\d+\] "Unhandled Error" err="error syncing item .*Namespace:\\"scratch\\"}.*: [a-z.]+ \\"[^"\\]+\\" not found"/,
  // The same in the quota controller: it writes the status of a quota its cache still holds,
  // which the namespace controller has just deleted, and is answered 404 (a 1.34 kube-apiserver
  // answers that write to a deleted quota the same); its next sync finds the quota gone. The
  // line names no namespace: only the quota the test makes in the namespace it deletes.
  /resource_quota_controller\.go:\d+\] "Unhandled Error" err="resourcequotas \\"pods\\" not found"/,
];

function serverFaults(log: string): string[] {
  return log
    .split('\n')
    .filter((line) => SERVER_FAULTS.some((fault) => fault.test(line)) && !BENIGN.some((benign) => benign.test(line)));
}

/**
 * Starts work a later case awaits, so it runs while the cases between do; holding its
 * rejection until then keeps it from being reported as unhandled.
 */
function inBackground<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

interface Lease {
  readonly spec: { readonly renewTime?: string };
}

/** The shared poll, at this file's pace. */
function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = WAIT_MS): Promise<T> {
  return pollUntil(what, probe, timeoutMs, POLL_MS);
}

/** The status of a GET with a bearer token; the components serve with self-signed certificates, so the server is not verified. */
function metricsStatus(url: URL, bearer: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpsGet(url, { rejectUnauthorized: false, headers: { authorization: `Bearer ${bearer}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

function succeeded(result: KubectlResult): string {
  if (result.code !== 0) throw new Error(`kubectl failed (${result.code}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

beforeAll(() => buildReferenceControllers(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);

describe.each([['SQLite'], ['etcd']])('the reference controllers against capstan on %s', (backend) => {
  let etcd: EtcdServer | undefined;
  let server: TestServer;
  let plane: ReferenceControllers;
  let workDir: string;
  const kubectl = (...args: string[]) => server.kubectl(args);
  const jsonpath = async (args: string[], path: string) => (await kubectl(...args, '-o', `jsonpath=${path}`)).stdout;
  const audit = (): AuditEvent[] =>
    readFileSync(join(workDir, 'audit.log'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as AuditEvent);

  let cronJobCreatedAt: number;
  let heartbeatsStopped: Promise<void>;

  /**
   * Runs a pod on the lost node, then stops the node's heartbeats: kwok writes a node's status
   * only while it holds the node's Lease, and renews the Lease only while no other holder's is
   * current. The Lease handed to a holder that never renews is what a kubelet that went away
   * leaves: no renewal, no status. It is handed over just after one of kwok's renewals, so that
   * no write of kwok's (whose 409 it would log as an error) crosses it.
   */
  async function stopHeartbeats(): Promise<void> {
    // The serviceaccount controller makes the namespace's default account a moment after the start; pods need it.
    await waitFor('the default service account', async () =>
      (await kubectl('get', 'serviceaccount', 'default')).code === 0 ? true : undefined,
    );
    succeeded(await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(ON_LOST_NODE) }));
    await waitFor('the pod on the lost node Running', async () =>
      (await jsonpath(['get', 'pod', ON_LOST_NODE.metadata.name], '{.status.phase}')) === 'Running' ? true : undefined,
    );
    const lease = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${LOST_NODE}`;
    const renewTime = async () => (await server.request('GET', lease)).json<Lease>().spec.renewTime;
    const before = await renewTime();
    await waitFor("kwok to renew the lost node's Lease", async () =>
      (await renewTime()) !== before ? true : undefined,
    );
    const handedOver = await server.request('PATCH', lease, {
      body: JSON.stringify({ spec: { holderIdentity: 'kubelet-gone', leaseDurationSeconds: 3600 } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    if (handedOver.status !== 200) throw new Error(`handing the Lease over: ${handedOver.status} ${handedOver.body}`);
  }

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'capstan-controllers-'));
    writeFileSync(join(workDir, 'policy.yaml'), AUDIT_POLICY);
    const flags = [
      ...(await serverFlagsForControllers(workDir)),
      `--audit-policy-file=${join(workDir, 'policy.yaml')}`,
      `--audit-log-path=${join(workDir, 'audit.log')}`,
      '--audit-log-maxsize=0',
    ];
    if (backend === 'etcd') {
      etcd = await startEtcd();
      server = await startServer({ etcdServers: etcd.endpoints, flags });
    } else {
      server = await startServer({ flags });
    }
    plane = await startReferenceControllers(server);
    await addSimulatedNodes(server, NODES, START_TIMEOUT_MS, [], SIMULATED_POD_NETWORK);
    await addSimulatedNodes(server, [LOST_NODE], START_TIMEOUT_MS, [LOST_NODE_TAINT], SIMULATED_POD_NETWORK);
    // The two cases that wait on the controllers' clocks start now and are checked near the end.
    cronJobCreatedAt = Date.now();
    succeeded(await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(EVERY_MINUTE) }));
    heartbeatsStopped = inBackground(stopHeartbeats());
  }, START_TIMEOUT_MS + 30_000);

  // Past the components' own 10 s to stop (and SIGKILL after): a shorter hook would let the run end with them still running.
  afterAll(async () => {
    await plane?.stop();
    await server?.stop();
    await etcd?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  }, 30_000);

  test(
    'a Deployment gets its ReplicaSet and Pods, scheduled onto the simulated nodes and Running; rollout status succeeds',
    async () => {
      succeeded(await kubectl('create', 'deployment', 'web', `--image=${IMAGE}`, '--replicas=3'));
      expect(succeeded(await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s'))).toContain(
        'successfully rolled out',
      );
      const replicaSets = await jsonpath(
        ['get', 'replicasets', '-l', 'app=web'],
        '{range .items[*]}{.metadata.ownerReferences[0].name}{" "}{.status.readyReplicas}{"\\n"}{end}',
      );
      expect(replicaSets.trim()).toBe('web 3');
      const pods = await jsonpath(
        ['get', 'pods', '-l', 'app=web'],
        '{range .items[*]}{.spec.nodeName}{" "}{.status.phase}{"\\n"}{end}',
      );
      const rows = pods.trim().split('\n');
      expect(rows).toHaveLength(3);
      for (const row of rows) {
        const [node, phase] = row.split(' ');
        expect(NODES).toContain(node);
        expect(phase).toBe('Running');
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'an image change rolls out a second ReplicaSet, and rollout undo brings the first image back',
    async () => {
      succeeded(await kubectl('set', 'image', 'deployment/web', `pause=${NEXT_IMAGE}`));
      succeeded(await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s'));
      expect(
        await jsonpath(['get', 'deployment', 'web'], '{.metadata.annotations.deployment\\.kubernetes\\.io/revision}'),
      ).toBe('2');
      expect(succeeded(await kubectl('rollout', 'undo', 'deployment/web'))).toContain('rolled back');
      succeeded(await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s'));
      expect(await jsonpath(['get', 'deployment', 'web'], '{.spec.template.spec.containers[0].image}')).toBe(IMAGE);
      expect(
        await jsonpath(['get', 'deployment', 'web'], '{.metadata.annotations.deployment\\.kubernetes\\.io/revision}'),
      ).toBe('3');
      const history = succeeded(await kubectl('rollout', 'history', 'deployment/web'));
      expect(history).toMatch(/^2\s/m);
      expect(history).toMatch(/^3\s/m);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'a Job completes; one with ttlSecondsAfterFinished is removed once finished',
    async () => {
      succeeded(await kubectl('create', 'job', 'once', `--image=${IMAGE}`));
      succeeded(await kubectl('wait', '--for=condition=complete', 'job/once', '--timeout=60s'));
      expect(await jsonpath(['get', 'job', 'once'], '{.status.succeeded}')).toBe('1');

      const shortLived = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'short-lived' },
        spec: {
          ttlSecondsAfterFinished: 0,
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'once', image: IMAGE }] } },
        },
      };
      succeeded(await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(shortLived) }));
      await waitFor('the finished Job to be removed', async () =>
        (await kubectl('get', 'job', 'short-lived')).stderr.includes('NotFound') ? true : undefined,
      );
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'kubectl drain evicts through pods/eviction and stops at a PodDisruptionBudget that allows no disruption',
    async () => {
      const node = NODES[0];
      const onNode = async (selector: string) =>
        jsonpath(
          ['get', 'pods', '-l', selector, '--field-selector', `spec.nodeName=${node}`],
          '{.items[*].status.phase}',
        );
      succeeded(await kubectl('create', 'deployment', 'guarded', `--image=${IMAGE}`, '--replicas=2'));
      succeeded(
        await kubectl(
          'patch',
          'deployment',
          'guarded',
          '--type=merge',
          '-p',
          JSON.stringify({ spec: { template: { spec: { nodeSelector: { 'kubernetes.io/hostname': node } } } } }),
        ),
      );
      succeeded(await kubectl('rollout', 'status', 'deployment/guarded', '--timeout=60s'));
      succeeded(
        await kubectl('create', 'poddisruptionbudget', 'guarded', '--selector=app=guarded', '--min-available=2'),
      );
      await waitFor('the disruption controller to fill the budget', async () =>
        (await jsonpath(['get', 'pdb', 'guarded'], '{.status.currentHealthy}/{.status.disruptionsAllowed}')) === '2/0'
          ? true
          : undefined,
      );

      const blocked = await kubectl('drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=8s');
      expect(blocked.code).not.toBe(0);
      expect(blocked.stderr).toContain("Cannot evict pod as it would violate the pod's disruption budget");
      expect(await onNode('app=guarded')).toBe('Running Running');
      expect(await jsonpath(['get', 'node', node], '{.spec.unschedulable}')).toBe('true');

      succeeded(await kubectl('delete', 'pdb', 'guarded'));
      const drained = await kubectl('drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=60s');
      expect(drained.stdout + drained.stderr).toMatch(/evicting pod default\/guarded-/);
      expect(drained.code).toBe(0);
      expect(await onNode('app in (guarded,web)')).toBe('');
      // The web pods the drain moved run on the other node again, through the controllers and the scheduler.
      succeeded(await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s'));
      expect(
        new Set((await jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[*].spec.nodeName}')).split(' ')),
      ).toEqual(new Set([NODES[1]]));
      succeeded(await kubectl('uncordon', node));
      succeeded(await kubectl('rollout', 'status', 'deployment/guarded', '--timeout=60s'));
      succeeded(await kubectl('delete', 'deployment', 'guarded'));
    },
    STEP_TIMEOUT_MS * 2,
  );

  test(
    'kubectl certificate approve: the controller manager signs the request with the cluster CA, and the certificate logs in',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'capstan-csr-'));
      try {
        const keyFile = join(dir, 'alice.key');
        const csr = certificateRequest({ subject: '/CN=alice/O=developers', keyFile });
        const request = {
          apiVersion: 'certificates.k8s.io/v1',
          kind: 'CertificateSigningRequest',
          metadata: { name: 'alice' },
          spec: {
            request: csr,
            signerName: 'kubernetes.io/kube-apiserver-client',
            usages: ['client auth'],
            expirationSeconds: 3600,
          },
        };
        succeeded(await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(request) }));
        expect(succeeded(await kubectl('certificate', 'approve', 'alice'))).toContain('approved');
        const issued = await waitFor(
          'the signed certificate',
          async () => (await jsonpath(['get', 'csr', 'alice'], '{.status.certificate}')) || undefined,
        );
        const certificate = new X509Certificate(Buffer.from(issued, 'base64'));
        const ca = new X509Certificate(readFileSync(join(server.dataDir, 'pki', 'ca.crt')));
        expect(certificate.verify(ca.publicKey)).toBe(true);
        expect(certificate.subject).toContain('CN=alice');

        const kubeconfig = join(dir, 'alice.kubeconfig');
        const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64');
        writeFileSync(
          kubeconfig,
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'Config',
            clusters: [
              { name: 'capstan', cluster: { server: server.url, 'certificate-authority-data': b64(ca.toString()) } },
            ],
            users: [
              {
                name: 'alice',
                user: {
                  'client-certificate-data': b64(certificate.toString()),
                  'client-key-data': b64(readFileSync(keyFile)),
                },
              },
            ],
            contexts: [{ name: 'alice', context: { cluster: 'capstan', user: 'alice' } }],
            'current-context': 'alice',
          }),
        );
        expect(
          succeeded(await runKubectl(kubeconfig, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])),
        ).toBe('alice');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'a StatefulSet and a DaemonSet roll out, and a Service gets an EndpointSlice of the ready pods',
    async () => {
      const statefulSet = {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db' },
        spec: {
          serviceName: 'db',
          replicas: 2,
          selector: { matchLabels: { app: 'db' } },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: IMAGE }] } },
        },
      };
      const daemonSet = {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'agent' },
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: IMAGE }] } },
        },
      };
      succeeded(
        await server.kubectl(['apply', '-f', '-'], {
          input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [statefulSet, daemonSet] }),
        }),
      );
      succeeded(await kubectl('rollout', 'status', 'statefulset/db', '--timeout=60s'));
      expect((await jsonpath(['get', 'pods', '-l', 'app=db'], '{.items[*].metadata.name}')).split(' ').sort()).toEqual([
        'db-0',
        'db-1',
      ]);
      succeeded(await kubectl('rollout', 'status', 'daemonset/agent', '--timeout=60s'));
      expect(
        (await jsonpath(['get', 'pods', '-l', 'app=agent'], '{.items[*].spec.nodeName}')).split(' ').sort(),
      ).toEqual(NODES);

      succeeded(await kubectl('expose', 'deployment', 'web', '--port=80'));
      const podIPs = (await jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[*].status.podIP}')).split(' ').sort();
      const endpoints = await waitFor('the EndpointSlice of the web Service', async () => {
        const addresses = await jsonpath(
          ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web'],
          '{.items[*].endpoints[?(@.conditions.ready==true)].addresses[0]}',
        );
        return addresses.split(' ').length === podIPs.length ? addresses.split(' ').sort() : undefined;
      });
      expect(endpoints).toEqual(podIPs);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the controller manager keeps a ResourceQuota's usage and empties and removes a deleted namespace",
    async () => {
      succeeded(await kubectl('create', 'namespace', 'scratch'));
      succeeded(await kubectl('create', 'quota', 'pods', '-n', 'scratch', '--hard=pods=10,configmaps=20'));
      succeeded(await kubectl('create', 'deployment', 'tmp', '-n', 'scratch', `--image=${IMAGE}`, '--replicas=2'));
      succeeded(await kubectl('create', 'configmap', 'settings', '-n', 'scratch'));
      succeeded(await kubectl('rollout', 'status', 'deployment/tmp', '-n', 'scratch', '--timeout=60s'));
      // Two pods; the ConfigMap made here and kube-root-ca.crt, which the root-CA publisher puts in every namespace.
      await waitFor('the quota usage', async () =>
        (await jsonpath(['get', 'quota', 'pods', '-n', 'scratch'], '{.status.used.pods}/{.status.used.configmaps}')) ===
        '2/2'
          ? true
          : undefined,
      );
      succeeded(await kubectl('delete', 'namespace', 'scratch', '--timeout=60s'));
      expect((await kubectl('get', 'namespace', 'scratch')).stderr).toContain('NotFound');
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'the persistent volume controller binds a claim to a matching volume',
    async () => {
      const volume = {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'disk' },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'manual',
          hostPath: { path: '/tmp/disk' },
        },
      };
      const claim = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'manual',
          resources: { requests: { storage: '1Gi' } },
        },
      };
      // Volumes of this class are made by hand.
      const storageClass = {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'manual' },
        provisioner: 'kubernetes.io/no-provisioner',
      };
      succeeded(
        await server.kubectl(['apply', '-f', '-'], {
          input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [storageClass, volume] }),
        }),
      );
      // Once the controller has seen the volume (it marks it Available), the claim finds it rather than asking for a new one.
      await waitFor('the volume Available', async () =>
        (await jsonpath(['get', 'pv', 'disk'], '{.status.phase}')) === 'Available' ? true : undefined,
      );
      succeeded(await server.kubectl(['apply', '-f', '-'], { input: JSON.stringify(claim) }));
      await waitFor('the claim bound', async () =>
        (await jsonpath(['get', 'pvc', 'data'], '{.status.phase}/{.spec.volumeName}')) === 'Bound/disk'
          ? true
          : undefined,
      );
      expect(await jsonpath(['get', 'pv', 'disk'], '{.status.phase}/{.spec.claimRef.name}')).toBe('Bound/data');
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'the scheduler preempts a lower-priority pod for a higher-priority one',
    async () => {
      succeeded(
        await server.kubectl(['apply', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'scheduling.k8s.io/v1',
            kind: 'PriorityClass',
            metadata: { name: 'urgent' },
            value: 1000,
          }),
        }),
      );
      const pod = (name: string, cpu: string, priorityClassName?: string) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, labels: { app: 'preemption' } },
        spec: {
          ...(priorityClassName ? { priorityClassName } : {}),
          nodeSelector: { 'kubernetes.io/hostname': NODES[1] },
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'main', image: IMAGE, resources: { requests: { cpu } } }],
        },
      });
      succeeded(await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(pod('filler', '28')) }));
      await waitFor('the filler Running', async () =>
        (await jsonpath(['get', 'pod', 'filler'], '{.status.phase}')) === 'Running' ? true : undefined,
      );
      succeeded(
        await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(pod('important', '8', 'urgent')) }),
      );
      await waitFor("the important pod Running in the filler's place", async () =>
        (await jsonpath(['get', 'pod', 'important'], '{.status.phase}')) === 'Running' ? true : undefined,
      );
      expect((await kubectl('get', 'pod', 'filler')).stderr).toContain('NotFound');
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'the cronjob controller starts a Job of a CronJob at its scheduled minute, and the Job completes',
    async () => {
      const timeoutMs = cronJobCreatedAt + CRON_JOB_TIMEOUT_MS - Date.now();
      await waitFor(
        "the CronJob's first Job to complete",
        async () => (await jsonpath(['get', 'cronjob', 'every-minute'], '{.status.lastSuccessfulTime}')) || undefined,
        timeoutMs,
      );
      // The Job is named for its scheduled minute, in minutes since the epoch.
      const scheduledMinute = Math.floor(
        Date.parse(await jsonpath(['get', 'cronjob', 'every-minute'], '{.status.lastScheduleTime}')) / 60_000,
      );
      const job = `every-minute-${scheduledMinute}`;
      expect(
        await jsonpath(
          ['get', 'job', job],
          '{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.status.succeeded} {.status.conditions[?(@.type=="Complete")].status}',
        ),
      ).toBe('CronJob/every-minute 1 True');
      succeeded(
        await kubectl(
          'patch',
          'cronjob',
          'every-minute',
          '--type=merge',
          '-p',
          JSON.stringify({ spec: { suspend: true } }),
        ),
      );
    },
    CRON_JOB_TIMEOUT_MS + 30_000,
  );

  test(
    'a node whose heartbeats stop turns NotReady, the node lifecycle controller taints it unreachable, and a pod tolerating that for 2 s is evicted',
    async () => {
      await heartbeatsStopped;
      await waitFor(
        'the lost node NotReady and tainted unreachable',
        async () => {
          const state = await jsonpath(
            ['get', 'node', LOST_NODE],
            '{.status.conditions[?(@.type=="Ready")].status} {.spec.taints[?(@.effect=="NoExecute")].key}',
          );
          return state === 'Unknown node.kubernetes.io/unreachable' ? true : undefined;
        },
        NODE_LOSS_TIMEOUT_MS,
      );
      // Evicted: the taint eviction controller says so in an event and deletes the pod. Whether the
      // deletion then finishes is kwok's choice: depending on the order it starts its controllers
      // in, it plays the kubelet of the pods of a node whose Lease it no longer holds, or not.
      const evicted = await waitFor('the pod on the lost node evicted', async () => {
        const event = await jsonpath(
          [
            'get',
            'events',
            '--field-selector',
            `involvedObject.name=${ON_LOST_NODE.metadata.name},reason=TaintManagerEviction`,
          ],
          '{.items[*].message}',
        );
        const pod = await kubectl(
          'get',
          'pod',
          ON_LOST_NODE.metadata.name,
          '-o',
          'jsonpath={.metadata.deletionTimestamp}',
        );
        const deleted = pod.code === 0 ? pod.stdout !== '' : pod.stderr.includes('NotFound');
        return deleted && event !== '' ? event : undefined;
      });
      expect(evicted).toBe(`Marking for deletion Pod default/${ON_LOST_NODE.metadata.name}`);
    },
    NODE_LOSS_TIMEOUT_MS + 30_000,
  );

  test(
    'the controller manager and the scheduler authenticate and authorize their own callers through capstan (TokenReview, SubjectAccessReview)',
    async () => {
      succeeded(await kubectl('create', 'serviceaccount', 'scraper'));
      succeeded(await kubectl('create', 'serviceaccount', 'stranger'));
      succeeded(await kubectl('create', 'clusterrole', 'metrics-reader', '--verb=get', '--non-resource-url=/metrics'));
      succeeded(
        await kubectl(
          'create',
          'clusterrolebinding',
          'scraper',
          '--clusterrole=metrics-reader',
          '--serviceaccount=default:scraper',
        ),
      );
      const token = async (account: string) => succeeded(await kubectl('create', 'token', account)).trim();
      const [scraper, stranger] = [await token('scraper'), await token('stranger')];
      for (const url of Object.values(plane.servingUrls)) {
        const status = (bearer: string) => metricsStatus(new URL('/metrics', url), bearer);
        expect({ url, scraper: await status(scraper), stranger: await status(stranger) }).toEqual({
          url,
          scraper: 200,
          stranger: 403,
        });
      }
    },
    STEP_TIMEOUT_MS,
  );

  test('each controller writes as its own service account, the scheduler binds as itself, and no one of them is refused', () => {
    const events = audit();
    const writers = (verb: string, resource: string, subresource?: string) =>
      new Set(
        events
          .filter(
            (e) =>
              e.verb === verb &&
              e.objectRef?.resource === resource &&
              e.objectRef?.subresource === subresource &&
              (e.responseStatus?.code ?? 0) < 300,
          )
          .map((e) => e.user.username),
      );
    const controller = (name: string) => `system:serviceaccount:kube-system:${name}`;
    expect(writers('create', 'replicasets')).toEqual(new Set([controller('deployment-controller')]));
    // The admin made the two pods of the preemption test itself.
    expect(writers('create', 'pods')).toEqual(
      new Set([
        ...['replicaset-controller', 'job-controller', 'statefulset-controller', 'daemon-set-controller'].map(
          controller,
        ),
        'kubernetes-admin',
      ]),
    );
    expect(writers('create', 'endpointslices')).toEqual(new Set([controller('endpointslice-controller')]));
    expect(writers('update', 'resourcequotas', 'status')).toEqual(new Set([controller('resourcequota-controller')]));
    expect(writers('update', 'namespaces', 'finalize')).toEqual(new Set([controller('namespace-controller')]));
    expect(writers('create', 'jobs')).toEqual(new Set([controller('cronjob-controller'), 'kubernetes-admin']));
    expect(writers('create', 'pods', 'binding')).toEqual(new Set(['system:kube-scheduler']));
    expect(writers('delete', 'pods')).toContain('system:kube-scheduler');
    // The taint eviction controller runs as the node lifecycle controller's account.
    expect(writers('delete', 'pods')).toContain(controller('node-controller'));
    expect(writers('update', 'persistentvolumeclaims', 'status')).toEqual(
      new Set([controller('persistent-volume-binder')]),
    );
    expect(writers('create', 'pods', 'eviction')).toEqual(new Set(['kubernetes-admin']));
    expect(writers('update', 'certificatesigningrequests', 'status')).toEqual(
      new Set([controller('certificate-controller')]),
    );
    // A namespace being deleted refuses new objects with 403, as the reference's NamespaceLifecycle does; controllers expect it.
    const terminating = (e: AuditEvent) => /because it is being terminated/.test(e.responseStatus?.message ?? '');
    const refusedOrFailed = events.filter(
      (e) =>
        isControlPlaneUser(e.user.username) &&
        (((e.responseStatus?.code ?? 0) === 403 && !terminating(e)) || (e.responseStatus?.code ?? 0) >= 500),
    );
    expect(
      refusedOrFailed.map((e) => `${e.responseStatus?.code} ${e.user.username} ${e.verb} ${e.requestURI}`),
    ).toEqual([]);
  });

  test.each<[ReferenceProcessName]>([['kube-controller-manager'], ['kube-scheduler']])(
    'every cache %s waits for syncs: no kind or watch is missing',
    (name) => {
      const log = plane.logs(name);
      const controllers = (pattern: RegExp) => new Set([...log.matchAll(pattern)].map((match) => match[1]));
      const waiting = controllers(/"Waiting for caches to sync" controller="([^"]+)"/g);
      const synced = controllers(/"Caches are synced" controller="([^"]+)"/g);
      expect(waiting.size).toBeGreaterThan(name === 'kube-controller-manager' ? 30 : 2);
      expect([...waiting].filter((controller) => !synced.has(controller))).toEqual([]);
    },
  );

  test.each<[ReferenceProcessName]>([['kube-controller-manager'], ['kube-scheduler'], ['kwok']])(
    '%s logs no error the server caused',
    (name) => {
      expect(serverFaults(plane.logs(name))).toEqual([]);
    },
  );
});
