/**
 * Debian's haproxy in front of replicas on loopback, configured from the deployment's own
 * `deploy/haproxy/haproxy.cfg` (TCP passthrough, health checks on /readyz) with loopback
 * addresses and a shorter check interval, so a test sees what a deployment would, faster.
 *
 *   const balancer = await startHaproxy({ port: await freePort(), replicaPorts: [p1, p2, p3] });
 *   ... https://127.0.0.1:${balancer.port} ...
 *   await balancer.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/capstan-process';

const DEPLOYED_CONFIG = join(ROOT, 'deploy', 'haproxy', 'haproxy.cfg');
const START_TIMEOUT_MS = 5_000;

/** Balancers still running when the test process exits are killed, so none outlive a test run. */
const liveProcesses = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of liveProcesses) child.kill('SIGKILL');
});

export interface Haproxy {
  readonly url: string;
  readonly port: number;
  /** The configuration haproxy runs with, for a failure message. */
  readonly config: string;
  output(): string;
  stop(): Promise<void>;
}

/** The deployed configuration with loopback addresses and a check every `checkIntervalMs`. */
export function loopbackConfig(options: {
  readonly port: number;
  readonly replicaPorts: readonly number[];
  readonly checkIntervalMs: number;
}): string {
  const deployed = readFileSync(DEPLOYED_CONFIG, 'utf8');
  const servers = options.replicaPorts.map((port, i) => `  server replica${i + 1} 127.0.0.1:${port}`).join('\n');
  return deployed
    .replace(/^\s*log stdout.*$/m, '')
    .replace(/^\s*bind :6443$/m, `  bind 127.0.0.1:${options.port}`)
    .replace(/\binter \S+/, `inter ${options.checkIntervalMs}`)
    .replace(/(^\s*server replica\d .*\n?)+/m, `${servers}\n`);
}

export async function startHaproxy(options: {
  readonly port: number;
  readonly replicaPorts: readonly number[];
  readonly checkIntervalMs?: number;
}): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-haproxy-'));
  const config = loopbackConfig({ ...options, checkIntervalMs: options.checkIntervalMs ?? 300 });
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  liveProcesses.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      liveProcesses.delete(child);
      resolve();
    }),
  );
  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await accepts(options.port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`haproxy did not listen on ${options.port}:\n${output}\n${config}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `https://127.0.0.1:${options.port}`, port: options.port, config, output: () => output, stop };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
