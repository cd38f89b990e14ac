/**
 * One etcd member for a benchmark run: started on free loopback ports with its data on a tmpfs
 * when there is one, stopped (and its data removed) when the run ends, or with this process
 * if the run dies first.
 *
 * Why not test/helpers/etcd.ts: bench/ must not depend on test code, and a benchmark needs
 * only a single member to start and stop (no kill/restart, no clusters). The flags are the
 * test helper's, so both measure the same etcd.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { sleep } from './measure';
import { killOnExit, scratchDir } from './scratch';

const STARTUP_TIMEOUT_MS = 15_000;
const LOG_TAIL_CHARS = 4_000;

export interface EtcdServer {
  /** Client URL, e.g. `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  /** Kills the process and removes its data dir. */
  stop(): Promise<void>;
}

export async function startEtcdServer(): Promise<EtcdServer> {
  // A tmpfs makes etcd's fsyncs cheap (3.4 has no --unsafe-no-fsync), as in the tests.
  const dataDir = scratchDir({ prefix: 'capstan-bench-etcd-', inMemory: true });
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const child = spawn(
    'etcd',
    [
      '--name=bench',
      `--data-dir=${dataDir.path}`,
      `--listen-client-urls=${endpoint}`,
      `--advertise-client-urls=${endpoint}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=bench=${peerUrl}`,
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
  killOnExit(child);
  let logTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    logTail = (logTail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
  });
  child.once('error', (error) => {
    logTail += `\nspawn failed: ${error.message}`;
  });
  // A failed spawn reports 'error' and may never report 'exit'.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  let running = true;
  void exited.then(() => {
    running = false;
  });

  const stop = async (): Promise<void> => {
    if (running) {
      child.kill('SIGKILL');
      await exited;
    }
    await dataDir.remove();
  };

  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!(await isHealthy(endpoint))) {
    if (!running || Date.now() > deadline) {
      await stop();
      throw new Error(`etcd did not become healthy within ${STARTUP_TIMEOUT_MS} ms:\n${logTail}`);
    }
    await sleep(50);
  }
  return { endpoint, stop };
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

/** A port the kernel just handed out on 127.0.0.1; free again by the time etcd binds it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
