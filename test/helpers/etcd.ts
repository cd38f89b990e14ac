/**
 * Real etcd processes for tests.
 *
 *   const etcd = await startEtcd();            // one member
 *   const store = await openEtcdStore({ endpoints: etcd.endpoints });
 *   ...
 *   await etcd.stop();                         // kills it and removes its data dir
 *
 *   const cluster = await startEtcdCluster(3); // three members
 *   await cluster.members[0].kill();           // SIGKILL, data kept
 *   await cluster.members[0].restart();        // same ports, same data
 *   await cluster.stop();
 *
 * Members listen on free loopback ports and keep their data under /dev/shm when it exists (a
 * tmpfs makes etcd's fsyncs cheap: 3.4 has no `--unsafe-no-fsync`). Every start waits until the
 * member reports healthy, so a returned cluster has a leader. Progress notifications come every
 * second (etcd's default is 10 minutes) so watch progress can be observed in a test.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';
import { retryUntil } from './wait-for';

const STARTUP_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
const LOG_TAIL_CHARS = 4_000;

export interface EtcdMember {
  readonly name: string;
  /** Client URL, e.g. `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  readonly running: boolean;
  /** Sends the signal (default SIGKILL) and waits for the process to exit; keeps the data dir. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the member again on the same ports and data; resolves when it is healthy. */
  restart(): Promise<void>;
  /** Freezes the process (SIGSTOP): its sockets stay open and nothing answers. */
  pause(): void;
  /** Lets a paused process run again (SIGCONT). */
  resume(): void;
}

export interface EtcdCluster {
  /** Client URLs of all members, in member order. */
  readonly endpoints: string[];
  readonly members: EtcdMember[];
  /** Kills every member and removes the data dirs. */
  stop(): Promise<void>;
}

/** A one-member cluster, with its member's `kill` and `restart` at hand. */
export interface EtcdServer extends EtcdCluster {
  kill(signal?: NodeJS.Signals): Promise<void>;
  restart(): Promise<void>;
}

export async function startEtcd(): Promise<EtcdServer> {
  const cluster = await startEtcdCluster(1);
  const member = cluster.members[0];
  return {
    ...cluster,
    kill: (signal) => member.kill(signal),
    restart: () => member.restart(),
  };
}

export async function startEtcdCluster(size: number): Promise<EtcdCluster> {
  const baseDir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'capstan-etcd-'));
  const configs: MemberConfig[] = [];
  for (let i = 0; i < size; i++) {
    configs.push({
      name: `m${i}`,
      clientPort: await freePort(),
      peerPort: await freePort(),
      dataDir: join(baseDir, `m${i}`),
    });
  }
  const initialCluster = configs.map((c) => `${c.name}=http://127.0.0.1:${c.peerPort}`).join(',');
  const clusterToken = `capstan-test-${process.pid}-${Date.now()}`;
  const members = configs.map((config) => new Member(config, { initialCluster, clusterToken }));
  const stop = async (): Promise<void> => {
    await Promise.all(members.map((m) => m.kill('SIGKILL')));
    await rm(baseDir, { recursive: true, force: true });
  };
  try {
    // Members of a new cluster wait for each other, so they must start together.
    await Promise.all(members.map((m) => m.restart()));
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoints: members.map((m) => m.endpoint), members, stop };
}

interface MemberConfig {
  readonly name: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
}

/** Processes still running when the test process exits are killed, so none outlive a test run. */
const liveProcesses = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of liveProcesses) child.kill('SIGKILL');
});

class Member implements EtcdMember {
  private process: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private logTail = '';

  constructor(
    private readonly config: MemberConfig,
    private readonly cluster: { readonly initialCluster: string; readonly clusterToken: string },
  ) {}

  get name(): string {
    return this.config.name;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.config.clientPort}`;
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  async restart(): Promise<void> {
    if (this.process) throw new Error(`etcd member ${this.name} is already running`);
    const { name, peerPort, dataDir } = this.config;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    // The initial-cluster flags only matter on first start; a restart reuses the data dir.
    const child = spawn(
      'etcd',
      [
        `--name=${name}`,
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${this.endpoint}`,
        `--advertise-client-urls=${this.endpoint}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=${this.cluster.initialCluster}`,
        `--initial-cluster-token=${this.cluster.clusterToken}`,
        '--initial-cluster-state=new',
        '--heartbeat-interval=50',
        '--election-timeout=500',
        '--experimental-watch-progress-notify-interval=1s',
        '--logger=zap',
        '--log-outputs=stderr',
        '--log-level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.process = child;
    liveProcesses.add(child);
    this.logTail = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      this.logTail = (this.logTail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
    });
    this.exited = new Promise((resolve) => {
      child.once('exit', () => {
        liveProcesses.delete(child);
        if (this.process === child) this.process = undefined;
        resolve();
      });
    });
    child.once('error', (error) => {
      this.logTail += `\nspawn failed: ${error.message}`;
    });
    await this.waitHealthy();
  }

  pause(): void {
    this.process?.kill('SIGSTOP');
  }

  resume(): void {
    this.process?.kill('SIGCONT');
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.process;
    if (!child) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private async waitHealthy(): Promise<void> {
    const healthy = await retryUntil(
      () => {
        if (!this.process) throw new Error(`etcd member ${this.name} exited during start-up:\n${this.logTail}`);
        return isHealthy(this.endpoint);
      },
      (answer) => answer,
      STARTUP_TIMEOUT_MS,
      50,
    );
    if (healthy) return;
    await this.kill();
    throw new Error(`etcd member ${this.name} not healthy within ${STARTUP_TIMEOUT_MS} ms:\n${this.logTail}`);
  }
}

async function isHealthy(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1_000) });
    const body = (await response.json()) as { health?: string };
    return body.health === 'true';
  } catch {
    return false;
  }
}
