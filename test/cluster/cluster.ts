/**
 * A whole cluster for the fault test, as processes on loopback: three etcd members, replicas
 * sharing one PKI (made by `deploy/pki/make-certs.sh`) on fixed ports so haproxy's
 * configuration stays valid across restarts, and haproxy in front.
 *
 *   const cluster = await startCluster({ replicas: 3, flags: ['--etcd-compaction-interval=2s'] });
 *   await cluster.killReplica(0);  await cluster.restartReplica(0);
 *   await cluster.stop();
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcdCluster, type EtcdCluster } from '../helpers/etcd';
import { startServer, type KubeconfigCredentials, type TestServer } from '../helpers/server';
import { freePort } from '../helpers/ports';
import { startHaproxy, type Haproxy } from './haproxy';

const MAKE_CERTS = join(__dirname, '..', '..', 'deploy', 'pki', 'make-certs.sh');
const REQUEST_TIMEOUT_MS = 5_000;

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

export interface Cluster {
  readonly etcd: EtcdCluster;
  readonly balancer: Haproxy;
  readonly credentials: KubeconfigCredentials;
  /** Replica i, or undefined while it is killed. */
  replica(i: number): TestServer | undefined;
  readonly replicaUrls: readonly string[];
  /** SIGKILL: no graceful shutdown. */
  killReplica(i: number): Promise<void>;
  /** SIGTERM: the graceful shutdown; resolves when the process has exited. */
  stopReplica(i: number): Promise<void>;
  /** On the same port; resolves when it is ready. */
  restartReplica(i: number): Promise<void>;
  /** One HTTPS request as the admin on a fresh connection (so the balancer picks a replica); rejects on a network failure or after 5 s. */
  request(url: string, method: string, path: string, body?: unknown): Promise<HttpAnswer>;
  stop(): Promise<void>;
}

export async function startCluster(options: {
  readonly replicas: number;
  readonly flags: readonly string[];
  /** Flags of replica i alone (its own --advertise-address, say). */
  readonly replicaFlags?: (i: number) => readonly string[];
}): Promise<Cluster> {
  const pkiDir = mkdtempSync(join(tmpdir(), 'capstan-cluster-pki-'));
  execFileSync('sh', [MAKE_CERTS, pkiDir], { stdio: 'pipe' });
  const etcd = await startEtcdCluster(3);
  const ports = await Promise.all(Array.from({ length: options.replicas }, () => freePort()));
  const start = (i: number) =>
    startServer({
      etcdServers: etcd.endpoints,
      pkiDir,
      flags: [
        `--secure-port=${ports[i]}`,
        '--bind-address=127.0.0.1',
        ...options.flags,
        ...(options.replicaFlags?.(i) ?? []),
      ],
    });
  const replicas: (TestServer | undefined)[] = [];
  let balancer: Haproxy | undefined;
  const stop = async () => {
    await balancer?.stop();
    await Promise.all(replicas.map((replica) => replica?.kill()));
    await etcd.stop();
    rmSync(pkiDir, { recursive: true, force: true });
  };
  try {
    // One at a time: the first writes the bootstrap objects the others then find.
    for (let i = 0; i < options.replicas; i++) replicas.push(await start(i));
    balancer = await startHaproxy({ port: await freePort(), replicaPorts: ports });
  } catch (error) {
    await stop();
    throw error;
  }
  const credentials = replicas[0]!.credentials;
  const request: Cluster['request'] = (url, method, path, body) => requestOnce(credentials, url, method, path, body);
  return {
    etcd,
    balancer: balancer!,
    credentials,
    replica: (i) => replicas[i],
    replicaUrls: ports.map((port) => `https://127.0.0.1:${port}`),
    async killReplica(i) {
      await replicas[i]?.kill('SIGKILL');
      replicas[i] = undefined;
    },
    async stopReplica(i) {
      await replicas[i]?.stop();
      replicas[i] = undefined;
    },
    async restartReplica(i) {
      replicas[i] = await start(i);
    },
    request,
    stop,
  };
}

/** One HTTPS request on a fresh connection (so a balancer picks a replica); rejects on a network failure or after 5 s. */
export function requestOnce(
  credentials: KubeconfigCredentials,
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, url),
      {
        method,
        ca: credentials.ca,
        cert: credentials.cert,
        key: credentials.key,
        agent: false,
        timeout: REQUEST_TIMEOUT_MS,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Which member leads the etcd cluster now (its index), from the members' own status. */
export async function etcdLeader(etcd: EtcdCluster): Promise<number> {
  const statuses = await Promise.all(
    etcd.members.map(async (member) => {
      const response = await fetch(`${member.endpoint}/v3/maintenance/status`, {
        method: 'POST',
        body: '{}',
        signal: AbortSignal.timeout(2_000),
      });
      return (await response.json()) as { header: { member_id: string }; leader: string };
    }),
  );
  return statuses.findIndex((status) => status.header.member_id === status.leader);
}
