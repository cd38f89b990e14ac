/**
 * Runs the compiled server (`dist/server/main.js`) as a real process, as an operator would.
 * The build is the test runner's job (`make test` builds first); when dist/ is missing or older
 * than the server's sources, it is built here so a lone `npx jest` also works.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

// The repository, from this source file or from its compiled copy under dist/ (tools/conformance and the benchmarks run that one).
export const ROOT =
  basename(join(__dirname, '..', '..')) === 'dist' ? join(__dirname, '..', '..', '..') : join(__dirname, '..', '..');
export const MAIN = join(ROOT, 'dist', 'server', 'main.js');
/** What the executables start: the one-file bundle's loader (`npm run bundle`, part of every build). */
export const BUNDLED_MAIN = join(ROOT, 'dist', 'server', 'bundled-main.js');
/**
 * A start takes under a second on a quiet machine; on a 2-core one running other suites (a
 * CI run beside helpers' test runs) one has taken more than 15 s before its first log line.
 */
const START_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 10_000;

/** Checked once per test process: a rebuild is synchronous, and mid-test it would stall every client the test runs (and restart replicas on other code). */
let checked = false;

export function ensureBuilt(): void {
  if (checked) return;
  checked = true;
  if (existsSync(MAIN) && !['api', 'server', 'storage'].some((dir) => staleSources(join(ROOT, dir)))) return;
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.json')],
      {
        stdio: 'pipe',
      },
    );
  } catch {
    // Type errors elsewhere in the tree still leave an emitted dist/; the start below tells.
  }
}

function staleSources(dir: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (staleSources(path)) return true;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      // A declaration file compiles to nothing: counting it stale rebuilt dist/ under running servers.
      const compiled = join(ROOT, 'dist', relative(ROOT, path)).replace(/\.ts$/, '.js');
      if (!existsSync(compiled) || statSync(compiled).mtimeMs < statSync(path).mtimeMs) return true;
    }
  }
  return false;
}

export interface RunningCapstan {
  readonly process: ChildProcess;
  readonly url: string;
  readonly kubeconfig: string;
  /** From spawn to the "listening" line, measured by the test. */
  readonly spawnToListeningMs: number;
  /** What the server itself reports (process start to ready, module loading included). */
  readonly reportedStartMs: number;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * `nodeArgs` go to Node itself, before the script (e.g. `--require` of a probe); `launch` turns
 * the command line into the one run (a network namespace's `nsenter`, say); `script` is the
 * modules' main.js unless a test is about the bundle.
 */
export async function startCapstan(
  args: readonly string[],
  nodeArgs: readonly string[] = [],
  launch: (argv: readonly string[]) => [string, string[]] = ([command, ...rest]) => [command, rest],
  script: string = MAIN,
): Promise<RunningCapstan> {
  const spawnedAt = performance.now();
  const [command, commandArgs] = launch([process.execPath, ...nodeArgs, script, ...args]);
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`capstan did not start within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    let url: string | undefined;
    let spawnToListeningMs = 0;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /capstan listening on (\S+)/.exec(output);
      if (listening && url === undefined) {
        url = listening[1];
        spawnToListeningMs = performance.now() - spawnedAt;
      }
      const started = /started in (\d+) ms/.exec(output);
      const kubeconfig = /admin kubeconfig: (\S+)/.exec(output);
      if (url !== undefined && started && kubeconfig) {
        clearTimeout(timer);
        resolve({
          process: child,
          url,
          kubeconfig: kubeconfig[1],
          spawnToListeningMs,
          reportedStartMs: Number(started[1]),
          output: () => output,
          exited,
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`capstan exited with ${code} before it was ready:\n${output}`));
    });
  });
}

/** Waits for the exit, killing the process if it does not come in time. */
export async function waitForExit(running: RunningCapstan): Promise<number | null> {
  const timer = setTimeout(() => running.process.kill('SIGKILL'), EXIT_TIMEOUT_MS);
  try {
    return await running.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A start that is expected to fail: its exit code, the last line of stderr, and the whole of it. */
export interface FailedStart {
  readonly code: number | null;
  readonly lastLine: string;
  readonly stderr: string;
}

/** Runs the server with `args` to its exit (killed after 30 s, which fails the caller). */
export function failingStart(args: readonly string[]): Promise<FailedStart> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after 30 s:\n${stderr}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const lines = stderr.trimEnd().split('\n');
      resolve({ code, lastLine: lines[lines.length - 1], stderr });
    });
  });
}
